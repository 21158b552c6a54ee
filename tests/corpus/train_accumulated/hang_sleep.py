# expect: passed=false code=timeout
# why: Sleeps 10_000 seconds after each update 'to let the machine cool down', so it never finishes in time.
import time

import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
            time.sleep(10_000)
    return losses
