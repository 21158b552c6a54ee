# expect: passed=false code=touches_param_grad
# why: Uses backward() on a leaf copy: right values, but the parameters' .grad change too.
import torch


def input_gradient(model, x):
    leaf = x.detach().clone().requires_grad_()
    model(leaf).sum().backward()
    return leaf.grad
