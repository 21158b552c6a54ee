# expect: passed=true code=ok
# why: Correct, printing every partial derivative as it goes.
import torch


def finite_difference_grad(f, x, eps=1e-4):
    grad = torch.zeros_like(x).reshape(-1)
    base = x.detach().reshape(-1)
    for i in range(base.numel()):
        e = torch.zeros_like(base)
        e[i] = eps
        grad[i] = (f((base + e).reshape(x.shape)) - f((base - e).reshape(x.shape))) / (2 * eps)
        print(f"d f / d x[{i}] = {grad[i].item():.6f}")
    return grad.reshape(x.shape)
