# expect: passed=false code=not_eval
# why: no_grad but no eval(): dropout and batch statistics stay in training mode.
import torch


def evaluate(model, loss_fn, batches):
    total = 0.0
    with torch.no_grad():
        for x, y in batches:
            total += loss_fn(model(x), y).item()
    return total / len(batches)
