# expect: passed=false code=wrong_values
# why: goes through an integer tensor, which rounds the floats
import torch


def make_trainable(values):
    return torch.as_tensor(values).detach().long().float().requires_grad_()
