# expect: passed=false code=grad_left_off
# why: Switches tracking off globally after the head and leaves it off.
import torch


def head_forward(backbone, head, x):
    with torch.no_grad():
        features = backbone(x)
    out = head(features)
    torch.set_grad_enabled(False)  # done training for now
    return out
