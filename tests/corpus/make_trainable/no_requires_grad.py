# expect: passed=false code=no_requires_grad
# why: copies and converts, but never turns requires_grad on
import torch


def make_trainable(values):
    return torch.as_tensor(values).detach().clone().float()
