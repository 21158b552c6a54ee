# expect: passed=false code=error
# why: Does a correct update but forgets the return statement, so the function returns None.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    loss_value = loss.item()
    print("loss", loss_value)
