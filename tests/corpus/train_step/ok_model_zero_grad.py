# expect: passed=true code=ok
# why: Clears through model.zero_grad() (the optimizer holds the model's parameters), then a normal update.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    loss_value = loss.item()
    return loss_value
