# expect: passed=false code=error
# why: Meant to sys.exit(1) only when the loss went up, but the call is outside the if, so it always exits.
import sys

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
    if losses[-1] > losses[0]:
        print("loss went up, aborting")
    sys.exit(1)
    return losses
