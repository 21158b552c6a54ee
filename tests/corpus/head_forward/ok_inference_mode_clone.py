# expect: passed=true code=ok
# why: inference_mode for the backbone, then a clone so the head may save the features.
import torch


def head_forward(backbone, head, x):
    with torch.inference_mode():
        features = backbone(x)
    return head(features.clone())
