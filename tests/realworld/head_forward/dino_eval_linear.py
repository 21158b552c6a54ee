# expect: passed=true code=ok
# source: facebookresearch/dino/eval_linear.py, train() (commit 04c0ad957c9fd04cced6d703668bc049586d1d21)
# adapted: the non-ViT branch `output = model(inp)` -> backbone(x); linear_classifier -> head; the loss/step that follow are the caller's.
# why: the backbone runs under torch.no_grad() and the head outside it, so backward reaches the head's parameters only; no requires_grad flag is touched and grad mode is back on after the block.
import torch


def head_forward(backbone, head, x):
    # forward
    with torch.no_grad():
        output = backbone(x)
    output = head(output)
    return output
