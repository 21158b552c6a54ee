# expect: passed=false code=used_autograd
# why: Switches requires_grad on for the caller's x and calls backward().
import torch


def finite_difference_grad(f, x, eps=1e-4):
    x.requires_grad_()
    f(x).backward()
    return x.grad.detach().clone()
