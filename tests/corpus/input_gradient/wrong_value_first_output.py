# expect: passed=false code=wrong_value
# why: Differentiates only the first output column instead of the sum of all outputs.
import torch


def input_gradient(model, x):
    leaf = x.detach().clone().requires_grad_()
    (g,) = torch.autograd.grad(model(leaf)[:, 0].sum() * 2, leaf)
    return g
