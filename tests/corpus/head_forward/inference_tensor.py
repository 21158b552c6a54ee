# expect: passed=false code=inference_tensor
# why: Feeds inference-mode features straight into the tracked head.
import torch


def head_forward(backbone, head, x):
    with torch.inference_mode():
        features = backbone(x)
    return head(features)
