# expect: passed=false code=mode_not_restored
# why: Always calls model.train() at the end.
import torch


def evaluate(model, loss_fn, batches):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in batches:
            total += loss_fn(model(x), y).item()
    model.train()
    return total / len(batches)
