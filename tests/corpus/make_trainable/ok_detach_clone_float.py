# expect: passed=true code=ok
# why: detach, copy, convert to float32, then require grad
import torch


def make_trainable(values):
    t = torch.as_tensor(values).detach().clone().float()
    return t.requires_grad_()
