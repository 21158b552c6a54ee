# expect: passed=true code=ok
# why: Decorated with @torch.no_grad(), writes the new value with p.copy_(p - lr * p.grad) and zeroes the gradient.
import torch


@torch.no_grad()
def manual_sgd_step(params, lr):
    for p in params:
        if p.grad is None:
            continue
        new_value = p - lr * p.grad
        p.copy_(new_value)
        p.grad.zero_()
