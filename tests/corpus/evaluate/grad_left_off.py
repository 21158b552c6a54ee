# expect: passed=false code=grad_left_off
# why: Turns tracking off for the rest of the calling thread and never back on.
import torch


def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    torch.set_grad_enabled(False)
    total = 0.0
    for x, y in batches:
        total += loss_fn(model(x), y).item()
    model.train(was_training)
    return total / len(batches)
