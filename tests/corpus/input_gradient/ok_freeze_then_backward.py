# expect: passed=true code=ok
# why: Turns requires_grad off for the parameters, uses backward() on a leaf copy, then turns it back on.
import torch


def input_gradient(model, x):
    params = list(model.parameters())
    flags = [p.requires_grad for p in params]
    for p in params:
        p.requires_grad_(False)
    try:
        xl = x.detach().clone().requires_grad_()
        model(xl).sum().backward()
        return xl.grad
    finally:
        for p, flag in zip(params, flags):
            p.requires_grad_(flag)
