# expect: passed=false code=wrong_type
# why: Right slope, but returns the tensor t.grad instead of a Python float.
import torch


def derivative(f, x):
    t = torch.tensor(x, requires_grad=True)
    f(t).backward()
    return t.grad
