# expect: passed=true code=ok
# why: Correct inside torch.enable_grad(); warns about a batch of one and writes to sys.stderr.
import sys
import warnings

import torch


def input_gradient(model, x):
    if x.shape[0] == 1:
        warnings.warn("a batch of one example")
    sys.stderr.write("computing the input gradient\n")
    with torch.enable_grad():
        leaf = x.detach().clone().requires_grad_()
        (g,) = torch.autograd.grad(model(leaf).sum(), leaf)
    return g
