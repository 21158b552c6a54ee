# expect: passed=false code=update_tracked
# why: Does p -= lr * p.grad outside torch.no_grad(), an in-place change of a leaf that requires grad (raises).
import torch


def manual_sgd_step(params, lr):
    for p in params:
        if p.grad is None:
            continue
        p -= lr * p.grad
        p.grad = None
