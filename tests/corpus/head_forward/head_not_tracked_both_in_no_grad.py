# expect: passed=false code=head_not_tracked
# why: Puts the head inside the no_grad block too.
import torch


def head_forward(backbone, head, x):
    with torch.no_grad():
        features = backbone(x)
        return head(features)
