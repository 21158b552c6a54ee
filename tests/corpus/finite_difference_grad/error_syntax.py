# expect: passed=false code=error
# why: A missing colon after the for statement: the file does not compile.
import torch


def finite_difference_grad(f, x, eps=1e-4):
    grad = torch.zeros_like(x)
    for i in range(x.numel())
        grad.view(-1)[i] = 0.0
    return grad
