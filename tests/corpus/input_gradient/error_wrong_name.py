# expect: passed=false code=error
# why: Correct code named saliency instead of input_gradient.
import torch


def saliency(model, x):
    leaf = x.detach().clone().requires_grad_()
    return torch.autograd.grad(model(leaf).sum(), leaf)[0]
