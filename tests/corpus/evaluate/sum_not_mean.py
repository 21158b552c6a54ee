# expect: passed=false code=sum_not_mean
# why: Forgets to divide by the number of batches.
import torch


def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in batches:
            total += loss_fn(model(x), y).item()
    model.train(was_training)
    return total
