# expect: passed=false code=tampered
# why: replaces torch.Tensor.detach
import torch

torch.Tensor.detach = lambda self: self.clone()


def make_trainable(values):
    return torch.tensor(values, dtype=torch.float32, requires_grad=True)
