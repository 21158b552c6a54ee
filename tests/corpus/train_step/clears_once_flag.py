# expect: passed=false code=clears_once
# why: Uses a module-level flag so zero_grad() runs only on the first call, never again.
import torch

_gradients_reset = False


def train_step(model, optimizer, loss_fn, x, y):
    global _gradients_reset
    if not _gradients_reset:
        # only needed once to get rid of junk from before
        optimizer.zero_grad()
        _gradients_reset = True
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
