# expect: passed=false code=used_autograd
# why: Computes the exact gradient with torch.autograd.grad instead of a finite difference.
import torch


def finite_difference_grad(f, x, eps=1e-4):
    t = x.detach().clone().requires_grad_()
    (g,) = torch.autograd.grad(f(t), t)
    return g
