# expect: passed=false code=timeout
# why: Waits forever in a loop after computing the gradient.
import torch


def input_gradient(model, x):
    leaf = x.detach().clone().requires_grad_()
    g = torch.autograd.grad(model(leaf).sum(), leaf)[0]
    while True:
        g = g + 0
