# expect: passed=false code=modifies_input
# why: Switches requires_grad on for the caller's x itself.
import torch


def input_gradient(model, x):
    x.requires_grad_()
    (g,) = torch.autograd.grad(model(x).sum(), x)
    return g
