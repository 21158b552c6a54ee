# expect: passed=false code=shares_input
# why: detach shares memory with the input and nothing copies it
import torch


def make_trainable(values):
    return torch.as_tensor(values, dtype=torch.float32).detach().requires_grad_()
