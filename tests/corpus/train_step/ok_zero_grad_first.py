# expect: passed=true code=ok
# why: Clears with optimizer.zero_grad() first, then forward, loss, backward, step, and returns loss.item().
import torch


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    pred = model(x)
    loss = loss_fn(pred, y)
    loss.backward()
    optimizer.step()
    return loss.item()
