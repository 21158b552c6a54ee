# expect: passed=false code=timeout
# why: Waits in an endless loop for the gradient to 'settle'.
import torch


def derivative(f, x):
    t = torch.tensor(x, requires_grad=True)
    f(t).backward()
    while True:
        pass
