# expect: passed=true code=ok
# why: set_grad_enabled(False) as a context manager for the backbone only.
import torch


def head_forward(backbone, head, x):
    with torch.set_grad_enabled(False):
        features = backbone(x)
    out = head(features)
    return out
