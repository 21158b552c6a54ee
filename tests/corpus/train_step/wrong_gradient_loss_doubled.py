# expect: passed=false code=wrong_gradient
# why: Back-propagates 2 * loss to 'learn faster', so the gradient is twice the right one.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    (2 * loss).backward()
    optimizer.step()
    return loss.item()
