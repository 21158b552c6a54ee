# expect: passed=false code=not_in_graph
# why: Makes a leaf copy that requires grad but runs the model on the original x.
import torch


def input_gradient(model, x):
    leaf = x.detach().clone().requires_grad_()
    out = model(x).sum()
    (g,) = torch.autograd.grad(out, leaf)
    return g
