# expect: passed=true code=ok
# why: Builds each step as a one-hot tensor shaped like x, without touching x.
import torch


def finite_difference_grad(f, x, eps=1e-4):
    out = []
    for i in range(x.numel()):
        step = torch.zeros(x.numel(), dtype=x.dtype)
        step[i] = eps
        step = step.reshape(x.shape)
        out.append((f(x + step) - f(x - step)) / (2 * eps))
    return torch.stack(out).reshape(x.shape)
