# expect: passed=false code=never_clears
# why: Forward, loss, backward and step with no gradient clearing anywhere, so gradients pile up.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    predictions = model(x)
    loss = loss_fn(predictions, y)
    loss.backward()
    optimizer.step()
    return loss.item()
