# expect: passed=true code=ok
# why: The backbone inside no_grad, the head after the block.
import torch


def head_forward(backbone, head, x):
    with torch.no_grad():
        features = backbone(x)
    return head(features)
