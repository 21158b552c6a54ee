# expect: passed=false code=error
# why: Correct update, then opens a log file outside its folder without try/except; the sandbox refuses.
import torch


def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p -= lr * p.grad
            p.grad = None
    with open("/work/main/tests/corpus/../../CORPUS_ESCAPE_MARKER", "a") as log:
        log.write(f"sgd step lr={lr}\n")
