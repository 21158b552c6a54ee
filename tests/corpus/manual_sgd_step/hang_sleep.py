# expect: passed=false code=timeout
# why: Sleeps 10_000 seconds after the update 'so I can watch the weights change'.
import time

import torch


def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p -= lr * p.grad
            p.grad = None
    time.sleep(10_000)
