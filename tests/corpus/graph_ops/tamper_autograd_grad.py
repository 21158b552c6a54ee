# expect: passed=false code=tampered
# why: replaces torch.autograd.grad
import torch

torch.autograd.grad = lambda *args, **kwargs: None


def graph_ops(t):
    return []
