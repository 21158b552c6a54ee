# expect: passed=true code=ok
# why: Correct, and prints the shapes.
import torch


def head_forward(backbone, head, x):
    with torch.no_grad():
        features = backbone(x)
    print("features:", tuple(features.shape), "requires_grad:", features.requires_grad)
    out = head(features)
    print("output grad_fn:", out.grad_fn)
    return out
