# expect: passed=false code=wrong_shape
# why: Right numbers, but returned as a flat vector instead of x's shape.
import torch


def finite_difference_grad(f, x, eps=1e-4):
    flat = x.reshape(-1)
    grads = []
    for i in range(flat.numel()):
        up, down = flat.clone(), flat.clone()
        up[i] += eps
        down[i] -= eps
        grads.append((f(up.reshape(x.shape)) - f(down.reshape(x.shape))) / (2 * eps))
    return torch.stack(grads)
