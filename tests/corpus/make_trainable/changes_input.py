# expect: passed=false code=changes_input
# why: as_tensor returns a float32 input itself, whose flag then flips
import torch


def make_trainable(values):
    t = torch.as_tensor(values, dtype=torch.float32)
    t.requires_grad_()
    return t
