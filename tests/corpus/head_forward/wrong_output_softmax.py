# expect: passed=false code=wrong_output
# why: Returns probabilities instead of the head's output.
import torch


def head_forward(backbone, head, x):
    with torch.no_grad():
        features = backbone(x)
    return torch.softmax(head(features), dim=1)
