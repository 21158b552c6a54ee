# expect: passed=false code=tampered
# why: replaces torch.Tensor.requires_grad_
import torch

torch.Tensor.requires_grad_ = lambda self, flag=True: self


def freeze_all_but(model, trainable):
    return 0
