# expect: passed=false code=tampered
# why: Replaces Tensor.item with its own version.
import torch

_real_item = torch.Tensor.item
torch.Tensor.item = lambda self: float(_real_item(self))



def evaluate(model, loss_fn, batches):
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
