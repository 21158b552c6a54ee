# expect: passed=false code=no_clear
# why: Tries to free the gradient with 'g = None' on a local copy of p.grad, which leaves p.grad untouched.
import torch


def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            g = p.grad
            if g is None:
                continue
            p.sub_(lr * g)
            g = None  # free the gradient
