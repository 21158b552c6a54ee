# expect: passed=false code=forward_difference
# why: One-sided (f(x + eps) - f(x)) / eps.
import torch


def finite_difference_grad(f, x, eps=1e-4):
    grad = torch.zeros_like(x)
    fx = f(x)
    for i in range(x.numel()):
        up = x.clone()
        up.view(-1)[i] += eps
        grad.view(-1)[i] = (f(up) - fx) / eps
    return grad
