# expect: passed=false code=wrong_type
# why: Returns a Python list of floats instead of a tensor.
import torch


def finite_difference_grad(f, x, eps=1e-4):
    out = []
    for i in range(x.numel()):
        up, down = x.clone(), x.clone()
        up.view(-1)[i] += eps
        down.view(-1)[i] -= eps
        out.append(((f(up) - f(down)) / (2 * eps)).item())
    return out
