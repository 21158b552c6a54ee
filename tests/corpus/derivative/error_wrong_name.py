# expect: passed=false code=error
# why: Correct code, but the function is called slope, not derivative.
import torch


def slope(f, x):
    t = torch.tensor(x, requires_grad=True)
    f(t).backward()
    return t.grad.item()
