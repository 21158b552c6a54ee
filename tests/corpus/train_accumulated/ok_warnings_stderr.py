# expect: passed=true code=ok
# why: Correct accumulation that warns when accum_steps == 1 and writes each update's mean loss to sys.stderr.
import sys
import warnings

import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    if accum_steps == 1:
        warnings.warn("accum_steps == 1: this is just plain training")
    warnings.warn("gradient accumulation is experimental in my code", UserWarning)
    losses = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
            mean = sum(losses[-accum_steps:]) / accum_steps
            print(f"update done, mean loss {mean:.4f}", file=sys.stderr)
    return losses
