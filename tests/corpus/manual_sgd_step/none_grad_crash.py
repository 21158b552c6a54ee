# expect: passed=false code=none_grad_crash
# why: Does not skip tensors whose .grad is None, so lr * p.grad raises a TypeError for them.
import torch


def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad = None
