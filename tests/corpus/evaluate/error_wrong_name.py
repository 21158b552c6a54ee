# expect: passed=false code=error
# why: Names the function validate.
import torch


def validate(model, loss_fn, batches):
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
