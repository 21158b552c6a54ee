# expect: passed=false code=error
# why: Raises a ValueError for negative x ('not supported yet').
import torch


def derivative(f, x):
    if x < 0:
        raise ValueError("negative x not supported yet")
    t = torch.tensor(x, requires_grad=True)
    f(t).backward()
    return t.grad.item()
