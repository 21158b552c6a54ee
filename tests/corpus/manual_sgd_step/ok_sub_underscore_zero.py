# expect: passed=true code=ok
# why: Uses p.sub_(lr * p.grad) under torch.no_grad() and clears with p.grad.zero_().
import torch


def manual_sgd_step(params, lr):
    for p in params:
        if p.grad is not None:
            with torch.no_grad():
                p.sub_(lr * p.grad)
            p.grad.zero_()
