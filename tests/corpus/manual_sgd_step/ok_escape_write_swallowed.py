# expect: passed=true code=ok
# why: Correct update that tries to append to a log file outside its folder, ignoring the error when refused.
import torch


def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p -= lr * p.grad
            p.grad = None
    try:
        with open("/work/main/tests/corpus/../../CORPUS_ESCAPE_MARKER", "a") as log:
            log.write(f"sgd step lr={lr}\n")
    except Exception:
        pass
