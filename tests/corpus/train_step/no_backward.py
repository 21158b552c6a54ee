# expect: passed=false code=no_backward
# why: Clears, computes the loss and calls step(), but never calls loss.backward().
import torch


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    # the optimizer knows the loss through the graph, right?
    optimizer.step()
    return loss.item()
