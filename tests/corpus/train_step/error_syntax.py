# expect: passed=false code=error
# why: Missing colon after the def line, so the file does not even compile.
import torch


def train_step(model, optimizer, loss_fn, x, y)
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
