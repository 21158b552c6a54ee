# expect: passed=false code=integer_requires_grad
# why: keeps the integer dtype of a list of ints and asks it to require grad
import torch


def make_trainable(values):
    return torch.tensor(values).requires_grad_()
