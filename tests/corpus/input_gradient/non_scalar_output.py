# expect: passed=false code=non_scalar_output
# why: Calls torch.autograd.grad on the raw non-scalar output, which raises.
import torch


def input_gradient(model, x):
    leaf = x.detach().clone().requires_grad_()
    (g,) = torch.autograd.grad(model(leaf), leaf)
    return g
