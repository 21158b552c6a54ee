# expect: passed=false code=error
# why: Defines the right code under the name train_one_step, so train_step does not exist.
import torch


def train_one_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
