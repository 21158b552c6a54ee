# expect: passed=false code=error
# why: Pre-allocates a 50-billion-element buffer 'for statistics', which fails under the memory limit.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    stats = torch.empty(50_000_000_000)  # room for all the losses I will ever need
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    stats[0] = loss.item()
    return loss.item()
