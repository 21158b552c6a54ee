# expect: passed=false code=no_step
# why: Clears, forward, loss and backward, but never calls optimizer.step().
import torch


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    output = model(x)
    loss = loss_fn(output, y)
    loss.backward()
    return loss.item()
