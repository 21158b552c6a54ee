# expect: passed=true code=ok
# why: Nudges x in place under no_grad and puts back the saved original value exactly.
import torch


@torch.no_grad()
def finite_difference_grad(f, x, eps=1e-4):
    grad = torch.empty_like(x)
    flat = x.view(-1)
    for i in range(flat.numel()):
        old = flat[i].item()
        flat[i] = old + eps
        up = f(x).item()
        flat[i] = old - eps
        down = f(x).item()
        flat[i] = old
        grad.view(-1)[i] = (up - down) / (2 * eps)
    return grad
