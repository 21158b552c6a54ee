# expect: passed=false code=ignores_eps
# why: Uses a step h = 1e-5 written into the function instead of the eps argument.
import torch


def finite_difference_grad(f, x, eps=1e-4):
    h = 1e-5
    grad = torch.zeros_like(x)
    for i in range(x.numel()):
        up, down = x.clone(), x.clone()
        up.view(-1)[i] += h
        down.view(-1)[i] -= h
        grad.view(-1)[i] = (f(up) - f(down)) / (2 * h)
    return grad
