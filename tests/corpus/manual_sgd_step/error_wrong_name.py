# expect: passed=false code=error
# why: Correct code defined as sgd_step, so manual_sgd_step does not exist.
import torch


def sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad
                p.grad = None
