# expect: passed=false code=head_not_tracked
# why: Detaches the head's output as well.
import torch


def head_forward(backbone, head, x):
    with torch.no_grad():
        features = backbone(x)
    return head(features).detach()
