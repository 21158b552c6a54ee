# expect: passed=false code=wrong_value
# why: Subtracts the wrong way round: (f(x - eps) - f(x + eps)) / (2 * eps).
import torch


def finite_difference_grad(f, x, eps=1e-4):
    grad = torch.zeros_like(x)
    for i in range(x.numel()):
        up, down = x.clone(), x.clone()
        up.view(-1)[i] += eps
        down.view(-1)[i] -= eps
        grad.view(-1)[i] = (f(down) - f(up)) / (2 * eps)
    return grad
