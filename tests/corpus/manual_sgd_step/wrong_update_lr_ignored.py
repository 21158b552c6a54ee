# expect: passed=false code=wrong_update
# why: Subtracts the raw gradient and never uses lr.
import torch


def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p -= p.grad   # the gradient already says how far to go
            p.grad = None
