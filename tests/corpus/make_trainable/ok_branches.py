# expect: passed=true code=ok
# why: handles lists and tensors separately
import torch


def make_trainable(values):
    if isinstance(values, torch.Tensor):
        t = values.detach().to(torch.float32, copy=True)
    else:
        t = torch.tensor(values, dtype=torch.float32)
    t.requires_grad = True
    return t
