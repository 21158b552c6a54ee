# expect: passed=false code=wrong_type
# why: Returns the gradient as a nested Python list (tolist()).
import torch


def input_gradient(model, x):
    leaf = x.detach().clone().requires_grad_()
    (g,) = torch.autograd.grad(model(leaf).sum(), leaf)
    return g.tolist()
