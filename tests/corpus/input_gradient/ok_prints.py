# expect: passed=true code=ok
# why: Correct, printing the output shape and the gradient norm.
import torch


def input_gradient(model, x):
    leaf = x.detach().requires_grad_()
    out = model(leaf)
    print("output shape:", tuple(out.shape))
    (g,) = torch.autograd.grad(out.sum(), leaf)
    print("gradient norm:", g.norm().item())
    return g
