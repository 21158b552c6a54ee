# expect: passed=false code=tampered
# why: Replaces torch.autograd.backward with a logging wrapper at import time; the update itself is correct.
import torch

_real_backward = torch.autograd.backward


def _logged_backward(*args, **kwargs):
    print("backward called")
    return _real_backward(*args, **kwargs)


torch.autograd.backward = _logged_backward


def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p -= lr * p.grad
            p.grad = None
