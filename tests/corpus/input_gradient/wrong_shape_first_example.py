# expect: passed=false code=wrong_shape
# why: Returns only the gradient of the first example, grad[0].
import torch


def input_gradient(model, x):
    leaf = x.detach().clone().requires_grad_()
    (g,) = torch.autograd.grad(model(leaf).sum(), leaf)
    return g[0]
