# expect: passed=false code=backbone_tracked
# why: Runs both models with tracking on: gradients reach the frozen backbone.
def head_forward(backbone, head, x):
    return head(backbone(x))
