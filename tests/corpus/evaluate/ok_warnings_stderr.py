# expect: passed=true code=ok
# why: Correct; warns and writes to stderr.
import sys
import warnings

import torch


def evaluate(model, loss_fn, batches):
    warnings.warn("evaluating")
    print("evaluate called", file=sys.stderr)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            return sum(loss_fn(model(x), y).item() for x, y in batches) / len(batches)
    finally:
        model.train(was_training)
