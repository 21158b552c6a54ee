# expect: passed=false code=error
# why: Names the function finetune_forward.
import torch


def finetune_forward(backbone, head, x):
    with torch.no_grad():
        features = backbone(x)
    return head(features)
