# expect: passed=true code=ok
# why: Correct; warns and writes to stderr.
import sys
import warnings

import torch


def head_forward(backbone, head, x):
    warnings.warn("backbone is frozen")
    sys.stderr.write("head_forward\n")
    with torch.no_grad():
        features = backbone(x)
    return head(features)
