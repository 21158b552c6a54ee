# expect: passed=false code=wrong_dtype
# why: makes float64 tensors
import torch


def make_trainable(values):
    return torch.as_tensor(values).detach().clone().double().requires_grad_()
