# expect: passed=false code=error
# why: A missing closing parenthesis: the file does not compile.
import torch


def derivative(f, x):
    t = torch.tensor(x, requires_grad=True
    f(t).backward()
    return t.grad.item()
