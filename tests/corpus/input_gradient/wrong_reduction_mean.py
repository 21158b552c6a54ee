# expect: passed=false code=wrong_reduction
# why: Differentiates the mean of the outputs instead of their sum.
import torch


def input_gradient(model, x):
    leaf = x.detach().clone().requires_grad_()
    (g,) = torch.autograd.grad(model(leaf).mean(), leaf)
    return g
