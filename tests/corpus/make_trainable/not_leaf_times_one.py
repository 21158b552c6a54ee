# expect: passed=false code=not_leaf
# why: multiplies after turning requires_grad on, which makes a non-leaf
import torch


def make_trainable(values):
    t = torch.as_tensor(values).detach().clone().float().requires_grad_()
    return t * 1.0
