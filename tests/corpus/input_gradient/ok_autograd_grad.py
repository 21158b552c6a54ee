# expect: passed=true code=ok
# why: A leaf copy of x, the sum of the outputs, and torch.autograd.grad.
import torch


def input_gradient(model, x):
    x_leaf = x.detach().clone().requires_grad_()
    out = model(x_leaf).sum()
    (grad,) = torch.autograd.grad(out, x_leaf)
    return grad
