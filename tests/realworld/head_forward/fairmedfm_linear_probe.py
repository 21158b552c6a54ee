# expect: passed=false code=froze_params
# source: FairMedFM/FairMedFM/usages/linear_probe.py, LinearProbeWarpper (__init__ freezes, forward = head(encoder(x)))
# adapted: self.encoder/self.head -> backbone/head; the freezing loop (written `self.model.parameters()` in the original, an attribute the class never sets) runs over backbone.parameters() at call time.
# why: backbone parameters get requires_grad=False, so backward trains the head only, but by changing the caller's flags (and the backbone forward still runs with tracking on).
import torch


def head_forward(backbone, head, x):
    for param in backbone.parameters():
        param.requires_grad = False
    return head(backbone(x))
