# expect: passed=true code=ok
# why: Correct update that also calls warnings.warn and writes progress to sys.stderr.
import sys
import warnings

import torch


def train_step(model, optimizer, loss_fn, x, y):
    if x.numel() < 2:
        warnings.warn("very small batch, the gradient will be noisy")
    warnings.warn("train_step called (debug build)", RuntimeWarning)

    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()

    value = loss.item()
    sys.stderr.write(f"[train_step] loss = {value:.5f}\n")
    sys.stderr.flush()
    return value
