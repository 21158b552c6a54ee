# expect: passed=false code=no_requires_grad
# why: Runs the model under torch.no_grad(), so there is no graph to differentiate.
import torch


def input_gradient(model, x):
    leaf = x.detach().clone().requires_grad_()
    with torch.no_grad():
        out = model(leaf).sum()
    (g,) = torch.autograd.grad(out, leaf)
    return g
