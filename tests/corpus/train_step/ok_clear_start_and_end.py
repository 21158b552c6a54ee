# expect: passed=true code=ok
# why: Calls optimizer.zero_grad() both before the forward pass and again after step(), to be safe.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()          # nothing stale from before
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()          # and leave things clean for the next call
    return loss.item()
