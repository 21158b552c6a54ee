# expect: passed=false code=error
# why: Calls os._exit(0) after the update (meant only for NaN losses, wrong indentation), killing the process.
import os

import torch


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    value = loss.item()
    if value != value:
        print("loss is NaN, stopping the run")
    os._exit(0)
    return value
