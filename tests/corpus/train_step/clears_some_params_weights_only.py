# expect: passed=false code=clears_some_params
# why: Clears only parameters whose name contains 'weight', so bias gradients pile up.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    for name, p in model.named_parameters():
        if "weight" in name:
            p.grad = None   # biases barely matter, skip them
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
