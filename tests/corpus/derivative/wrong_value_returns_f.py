# expect: passed=false code=wrong_value
# why: Calls backward() but returns the value f(x) instead of the slope.
import torch


def derivative(f, x):
    t = torch.tensor(x, requires_grad=True)
    y = f(t)
    y.backward()
    return y.item()
