# expect: passed=false code=no_requires_grad
# why: Forgets requires_grad=True, so backward() raises 'element 0 of tensors does not require grad'.
import torch


def derivative(f, x):
    t = torch.tensor(x)
    f(t).backward()
    return t.grad.item()
