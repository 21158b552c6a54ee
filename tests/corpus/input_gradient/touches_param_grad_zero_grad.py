# expect: passed=false code=touches_param_grad
# why: Calls model.zero_grad() 'to be safe' before the backward, wiping the parameters' stale gradients.
import torch


def input_gradient(model, x):
    model.zero_grad()
    leaf = x.detach().clone().requires_grad_()
    (g,) = torch.autograd.grad(model(leaf).sum(), leaf)
    return g
