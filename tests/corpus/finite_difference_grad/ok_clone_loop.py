# expect: passed=true code=ok
# why: Loops over the entries of flat clones of x and reshapes nothing: the views keep x's shape.
import torch


def finite_difference_grad(f, x, eps=1e-4):
    grad = torch.zeros_like(x)
    flat_grad = grad.view(-1)
    for i in range(x.numel()):
        up = x.clone()
        down = x.clone()
        up.view(-1)[i] += eps
        down.view(-1)[i] -= eps
        flat_grad[i] = (f(up) - f(down)) / (2 * eps)
    return grad
