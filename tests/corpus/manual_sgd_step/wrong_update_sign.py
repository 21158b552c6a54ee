# expect: passed=false code=wrong_update
# why: Adds lr * p.grad instead of subtracting it (gradient ascent).
import torch


def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p += lr * p.grad
            p.grad = None
