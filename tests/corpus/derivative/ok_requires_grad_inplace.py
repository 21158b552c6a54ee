# expect: passed=true code=ok
# why: Creates the tensor first and switches requires_grad on with requires_grad_() before calling f.
import torch


def derivative(f, x):
    t = torch.tensor(x)
    t.requires_grad_()
    out = f(t)
    out.backward()
    return t.grad.item()
