# expect: passed=false code=wrong_output
# why: Skips the backbone and feeds x to the head's features.
import torch


def head_forward(backbone, head, x):
    with torch.no_grad():
        backbone(x)
        features = torch.relu(x[:, :1].repeat(1, 6))
    return head(features)
