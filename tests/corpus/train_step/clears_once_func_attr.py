# expect: passed=false code=clears_once
# why: Stores a flag as a function attribute and calls model.zero_grad() on the first call only.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    if not getattr(train_step, "initialized", False):
        model.zero_grad()
        train_step.initialized = True
    out = model(x)
    loss = loss_fn(out, y)
    loss.backward()
    optimizer.step()
    return float(loss.detach())
