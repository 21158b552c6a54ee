# expect: passed=false code=wrong_update
# why: Rebinds the loop variable (p = p - lr * g), so the caller's tensors never change; the gradient is cleared.
import torch


def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            g = p.grad
            if g is None:
                continue
            p.grad = None
            p = p - lr * g
