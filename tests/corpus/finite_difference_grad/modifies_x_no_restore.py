# expect: passed=false code=modifies_x
# why: Nudges x in place up and down but never puts the entry back.
import torch


def finite_difference_grad(f, x, eps=1e-4):
    grad = torch.zeros_like(x)
    for i in range(x.numel()):
        x.view(-1)[i] += eps
        up = f(x)
        x.view(-1)[i] -= 2 * eps
        down = f(x)
        grad.view(-1)[i] = (up - down) / (2 * eps)
    return grad
