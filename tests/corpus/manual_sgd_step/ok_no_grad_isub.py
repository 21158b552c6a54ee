# expect: passed=true code=ok
# why: Under torch.no_grad() does p -= lr * p.grad, then sets p.grad = None; skips tensors without a gradient.
import torch


def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p -= lr * p.grad
            p.grad = None
