# expect: passed=true code=ok
# why: Builds a float64 leaf, calls backward() and converts the gradient with float().
import torch


def derivative(f, x):
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    f(t).backward()
    return float(t.grad)
