# expect: passed=false code=clears_after_step
# why: Clears with model.zero_grad() in a finally block after step(), so stale gradients reach the first update.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    try:
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.item()
    finally:
        # always reset, even if something goes wrong
        model.zero_grad()
