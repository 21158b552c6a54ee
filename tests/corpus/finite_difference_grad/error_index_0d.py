# expect: passed=false code=error
# why: Indexes x[i] directly, which fails for a 0-d tensor.
import torch


def finite_difference_grad(f, x, eps=1e-4):
    grad = torch.zeros_like(x)
    for i in range(len(x)):
        up, down = x.clone(), x.clone()
        up[i] += eps
        down[i] -= eps
        grad[i] = (f(up) - f(down)) / (2 * eps)
    return grad
