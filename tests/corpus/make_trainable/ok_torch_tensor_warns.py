# expect: passed=true code=ok
# why: torch.tensor copies its input (and warns when it is given a tensor)
import torch


def make_trainable(values):
    return torch.tensor(values, dtype=torch.float32, requires_grad=True)
