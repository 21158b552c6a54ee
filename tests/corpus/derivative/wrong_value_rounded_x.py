# expect: passed=false code=wrong_value
# why: Rounds x to one decimal before building the tensor, so the slope is taken at another point.
import torch


def derivative(f, x):
    t = torch.tensor(round(x, 1), requires_grad=True)
    f(t).backward()
    return t.grad.item()
