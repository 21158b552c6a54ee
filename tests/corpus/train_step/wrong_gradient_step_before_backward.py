# expect: passed=false code=wrong_gradient
# why: Calls step() before computing this batch's gradient, so each update uses the previous batch's gradient.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.step()          # apply what we have
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()           # ready for the next call
    return loss.item()
