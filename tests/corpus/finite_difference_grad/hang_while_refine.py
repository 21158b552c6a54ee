# expect: passed=false code=timeout
# why: Keeps halving eps 'until the estimate stops changing', which never happens in its loop.
import torch


def finite_difference_grad(f, x, eps=1e-4):
    grad = torch.zeros_like(x)
    while True:
        eps = eps / 2 if eps > 1e-12 else 1e-4
