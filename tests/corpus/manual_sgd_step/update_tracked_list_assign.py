# expect: passed=false code=update_tracked
# why: Writes params[i] = p - lr * p.grad outside no_grad, leaving non-leaf tensors with a grad_fn in the list.
import torch


def manual_sgd_step(params, lr):
    for i, p in enumerate(params):
        if p.grad is None:
            continue
        params[i] = p - lr * p.grad
        p.grad = None
