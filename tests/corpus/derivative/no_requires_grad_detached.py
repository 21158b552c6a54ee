# expect: passed=false code=no_requires_grad
# why: Passes a detached copy to f and returns the value of its output, never differentiating.
import torch


def derivative(f, x):
    t = torch.tensor(x, requires_grad=True)
    return f(t.detach()).item()
