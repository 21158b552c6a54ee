# expect: passed=false code=error
# why: Correct code defined as fd_grad, so finite_difference_grad does not exist.
import torch


def fd_grad(f, x, eps=1e-4):
    grad = torch.zeros_like(x)
    for i in range(x.numel()):
        up, down = x.clone(), x.clone()
        up.view(-1)[i] += eps
        down.view(-1)[i] -= eps
        grad.view(-1)[i] = (f(up) - f(down)) / (2 * eps)
    return grad
