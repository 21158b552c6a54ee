# expect: passed=false code=no_requires_grad
# why: Runs f inside torch.no_grad(), so the output has no graph and backward() raises.
import torch


def derivative(f, x):
    t = torch.tensor(x, requires_grad=True)
    with torch.no_grad():
        y = f(t)
    y.backward()
    return t.grad.item()
