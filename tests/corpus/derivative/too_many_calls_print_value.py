# expect: passed=false code=too_many_calls
# why: Calls f once to print its value and a second time for backward().
import torch


def derivative(f, x):
    t = torch.tensor(x, requires_grad=True)
    print("value:", f(t).item())
    f(t).backward()
    return t.grad.item()
