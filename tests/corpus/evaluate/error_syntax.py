# expect: passed=false code=error
# why: An unclosed parenthesis.
import torch


def evaluate(model, loss_fn, batches):
    with torch.no_grad():
        return sum(loss_fn(model(x), y).item() for x, y in batches / len(batches)
