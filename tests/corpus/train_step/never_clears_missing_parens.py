# expect: passed=false code=never_clears
# why: Writes optimizer.zero_grad without parentheses, so the method is never called and gradients pile up.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
