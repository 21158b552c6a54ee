# expect: passed=false code=not_leaf
# why: clones without detaching, so a tensor from a graph stays in it
import torch


def make_trainable(values):
    return torch.as_tensor(values, dtype=torch.float32).clone().requires_grad_()
