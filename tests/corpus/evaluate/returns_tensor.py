# expect: passed=false code=returns_tensor
# why: Adds loss tensors under no_grad and returns the tensor mean.
import torch


def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    total = 0
    with torch.no_grad():
        for x, y in batches:
            total += loss_fn(model(x), y)
    model.train(was_training)
    return total / len(batches)
