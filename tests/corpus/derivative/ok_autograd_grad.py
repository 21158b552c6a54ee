# expect: passed=true code=ok
# why: Uses the functional torch.autograd.grad instead of backward(): one call of f, exact slope.
import torch


def derivative(f, x):
    t = torch.tensor(float(x), requires_grad=True)
    (slope,) = torch.autograd.grad(f(t), t)
    return slope.item()
