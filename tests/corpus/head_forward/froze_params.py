# expect: passed=false code=froze_params
# why: Freezes the backbone for good with requires_grad_(False).
def head_forward(backbone, head, x):
    backbone.requires_grad_(False)
    return head(backbone(x))
