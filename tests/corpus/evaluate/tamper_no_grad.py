# expect: passed=false code=tampered
# why: Replaces torch.no_grad with a do-nothing context manager.
import contextlib

import torch

torch.no_grad = contextlib.nullcontext



def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    try:
        total = 0.0
        with torch.no_grad():
            for x, y in batches:
                total += loss_fn(model(x), y).item()
        return total / len(batches)
    finally:
        model.train(was_training)
