# expect: passed=false code=error
# why: the function is called trainable, not make_trainable
import torch


def trainable(values):
    return torch.tensor(values, dtype=torch.float32, requires_grad=True)
