# expect: passed=false code=clears_some_params
# why: Zeroes only the first parameter tensor (the first layer's weight); the others keep stale gradients.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    first = next(iter(model.parameters()))
    if first.grad is not None:
        first.grad.zero_()   # first layer is the one that gets the big gradients
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
