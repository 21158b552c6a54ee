# expect: passed=true code=ok
# why: Sets p.grad = None for every model parameter by hand before forward, backward and step.
import torch


def clear_gradients(model):
    for p in model.parameters():
        p.grad = None


def train_step(model, optimizer, loss_fn, x, y):
    clear_gradients(model)
    prediction = model(x)
    loss = loss_fn(prediction, y)
    loss.backward()
    optimizer.step()
    return loss.item()
