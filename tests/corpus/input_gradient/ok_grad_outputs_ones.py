# expect: passed=true code=ok
# why: Keeps the output non-scalar and passes grad_outputs=torch.ones_like(out).
import torch


def input_gradient(model, x):
    xs = x.clone().requires_grad_(True)
    out = model(xs)
    return torch.autograd.grad(out, xs, grad_outputs=torch.ones_like(out))[0]
