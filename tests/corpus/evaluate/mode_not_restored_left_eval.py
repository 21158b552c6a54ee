# expect: passed=false code=mode_not_restored
# why: Never switches the model back to training mode.
import torch


def evaluate(model, loss_fn, batches):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in batches:
            total += loss_fn(model(x), y).item()
    return total / len(batches)
