# expect: passed=true code=ok
# why: Updates through p.data.add_(p.grad, alpha=-lr), which autograd does not see, then p.grad = None.
import torch


def manual_sgd_step(params, lr):
    for p in params:
        grad = p.grad
        if grad is None:
            continue  # this tensor was not used in the loss
        p.data.add_(grad, alpha=-lr)
        p.grad = None
