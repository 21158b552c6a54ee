# expect: passed=false code=wrong_values
# why: flattens nested lists
import torch


def make_trainable(values):
    return torch.as_tensor(values).detach().clone().float().flatten().requires_grad_()
