# expect: passed=false code=tampered
# why: Wraps torch.autograd.grad with a logger at import time; the gradient itself is right.
import torch

_grad = torch.autograd.grad


def _logged(*args, **kwargs):
    print("autograd.grad called")
    return _grad(*args, **kwargs)


torch.autograd.grad = _logged


def input_gradient(model, x):
    leaf = x.detach().clone().requires_grad_()
    return torch.autograd.grad(model(leaf).sum(), leaf)[0]
