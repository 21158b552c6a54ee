# expect: passed=false code=head_not_tracked
# why: Runs both models under inference_mode.
import torch


@torch.inference_mode()
def head_forward(backbone, head, x):
    return head(backbone(x))
