# expect: passed=false code=not_a_tensor
# why: returns a list of floats
import torch


def make_trainable(values):
    return torch.as_tensor(values, dtype=torch.float32).tolist()
