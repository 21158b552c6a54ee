# expect: passed=false code=error
# why: An unclosed bracket: the file does not compile.
import torch


def input_gradient(model, x):
    leaf = x.detach().clone().requires_grad_(
    return torch.autograd.grad(model(leaf).sum(), leaf)[0]
