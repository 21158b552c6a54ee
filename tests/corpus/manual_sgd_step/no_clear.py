# expect: passed=false code=no_clear
# why: Updates in place under torch.no_grad() but never clears p.grad.
import torch


def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad
