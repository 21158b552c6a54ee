# expect: passed=false code=clears_after_step
# why: Forward, loss, backward, step, then optimizer.zero_grad() at the end; nothing clears before the first update.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    out = model(x)
    loss = loss_fn(out, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()  # clean up for the next batch
    return loss.item()
