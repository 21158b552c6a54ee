# expect: passed=false code=wrong_value
# why: Divides by the number of batches plus one.
import torch


def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in batches:
            total += loss_fn(model(x), y).item()
    model.train(was_training)
    return total / (len(batches) + 1)
