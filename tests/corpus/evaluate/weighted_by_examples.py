# expect: passed=false code=weighted_by_examples
# why: Weights each batch by its size (the per-example mean).
import torch


def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for x, y in batches:
            total += loss_fn(model(x), y).item() * len(x)
            count += len(x)
    model.train(was_training)
    return total / count
