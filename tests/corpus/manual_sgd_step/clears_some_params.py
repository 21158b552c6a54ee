# expect: passed=false code=clears_some_params
# why: Updates every tensor correctly but clears the gradient only of tensors with more than one dimension.
import torch


def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p -= lr * p.grad
            if p.dim() > 1:     # biases are tiny, leave them
                p.grad = None
