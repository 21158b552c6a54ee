# expect: passed=true code=ok
# why: Correct; warns with warnings.warn and writes a note to sys.stderr.
import sys
import warnings

import torch


def derivative(f, x):
    t = torch.tensor(x, requires_grad=True)
    y = f(t)
    y.backward()
    slope = t.grad.item()
    if abs(slope) > 10:
        warnings.warn(f"steep function at {x}: slope {slope}")
    sys.stderr.write("derivative computed\n")
    return slope
