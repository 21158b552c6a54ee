# expect: passed=false code=error
# why: A misspelt keyword.
import torch


def head_forward(backbone, head, x):
    whith torch.no_grad():
        features = backbone(x)
    return head(features)
