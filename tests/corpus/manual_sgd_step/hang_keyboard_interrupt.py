# expect: passed=false code=timeout
# why: After the update loops forever, catching KeyboardInterrupt so Ctrl-C cannot stop it.
import time

import torch


def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p -= lr * p.grad
            p.grad = None
    while True:
        try:
            time.sleep(1)  # wait for the plot window
        except KeyboardInterrupt:
            print("use the close button instead")
