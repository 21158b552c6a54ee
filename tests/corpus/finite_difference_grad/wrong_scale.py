# expect: passed=false code=wrong_scale
# why: Central difference divided by eps instead of 2 * eps.
import torch


def finite_difference_grad(f, x, eps=1e-4):
    grad = torch.zeros_like(x)
    for i in range(x.numel()):
        up, down = x.clone(), x.clone()
        up.view(-1)[i] += eps
        down.view(-1)[i] -= eps
        grad.view(-1)[i] = (f(up) - f(down)) / eps
    return grad
