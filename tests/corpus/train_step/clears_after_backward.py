# expect: passed=false code=clears_after_backward
# why: Calls optimizer.zero_grad() between backward() and step(), so the step sees no gradient.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    out = model(x)
    loss = loss_fn(out, y)
    loss.backward()
    optimizer.zero_grad()  # reset before stepping
    optimizer.step()
    return loss.item()
