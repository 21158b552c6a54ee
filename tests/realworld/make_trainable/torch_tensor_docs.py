# expect: passed=true code=ok
# source: https://pytorch.org/docs/stable/generated/torch.tensor.html (torch.tensor(data, *, dtype=None, device=None, requires_grad=False, ...): "always copies data ... constructs a leaf variable")
# adapted: the documented constructor with dtype=torch.float32 and requires_grad=True applied to values.
# why: copies from lists (nested too) and from tensors of any dtype (detached, even from a non-leaf), casts to float32 and returns a new leaf requiring grad; the input is left untouched (a tensor input only triggers a UserWarning).
import torch


def make_trainable(values):
    return torch.tensor(values, dtype=torch.float32, requires_grad=True)
