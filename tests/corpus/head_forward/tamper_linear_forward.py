# expect: passed=false code=tampered
# why: Replaces nn.Linear.forward with a wrapper.
import torch

_real = torch.nn.Linear.forward


def _forward(self, x):
    return _real(self, x)


torch.nn.Linear.forward = _forward


def head_forward(backbone, head, x):
    with torch.no_grad():
        features = backbone(x)
    return head(features)
