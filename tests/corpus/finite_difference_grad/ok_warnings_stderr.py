# expect: passed=true code=ok
# why: Correct; warns when eps is large and writes a line to sys.stderr.
import sys
import warnings

import numpy as np
import torch


def finite_difference_grad(f, x, eps=1e-4):
    if eps > 0.1:
        warnings.warn(f"eps={eps} is large: the estimate may be rough")
    sys.stderr.write(f"estimating {x.numel()} partial derivatives\n")
    grad = torch.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        up, down = x.clone(), x.clone()
        up[idx] += eps
        down[idx] -= eps
        grad[idx] = (f(up) - f(down)) / (2 * eps)
    return grad
