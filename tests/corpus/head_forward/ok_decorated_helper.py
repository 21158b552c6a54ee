# expect: passed=true code=ok
# why: A helper decorated with torch.no_grad() computes the features.
import torch


@torch.no_grad()
def _features(backbone, x):
    return backbone(x)


def head_forward(backbone, head, x):
    return head(_features(backbone, x))
