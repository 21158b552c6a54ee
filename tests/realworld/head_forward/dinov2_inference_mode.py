# expect: passed=false code=inference_tensor
# source: facebookresearch/dinov2 issues #399 and #472 (https://github.com/facebookresearch/dinov2/issues/399): frozen ViT backbone features produced under torch.inference_mode(), DPT head trained on them
# adapted: the backbone call wrapped in `with torch.inference_mode():`, the head called outside, as in the reported setup.
# why: tracking is off for the backbone, but its output is an inference tensor; the head's Linear saves it for backward, which raises "Inference tensors cannot be saved for backward".
import torch


def head_forward(backbone, head, x):
    with torch.inference_mode():
        features = backbone(x)
    return head(features)
