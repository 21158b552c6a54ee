# expect: passed=false code=wrong_update
# why: Scales p.grad by lr in place and then subtracts lr * p.grad, so the step is lr squared times the gradient.
import torch


def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p.grad.mul_(lr)        # scale the gradient by the learning rate
            p.sub_(lr * p.grad)    # and take the step
            p.grad = None
