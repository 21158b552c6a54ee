# expect: passed=true code=ok
# why: correct, and warns and writes to stderr
import sys
import warnings

import torch


def make_trainable(values):
    warnings.warn("copying values")
    print("converting", type(values).__name__, file=sys.stderr)
    out = torch.zeros(torch.as_tensor(values).shape)
    with torch.no_grad():
        out.copy_(torch.as_tensor(values))
    return out.requires_grad_()
