# expect: passed=true code=ok
# why: Clears every parameter of every optimizer param_group (p.grad = None) before the update.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    # the optimizer knows exactly which tensors it updates, so clear those
    for group in optimizer.param_groups:
        for p in group["params"]:
            p.grad = None

    out = model(x)
    loss = loss_fn(out, y)
    loss.backward()
    optimizer.step()
    return float(loss.detach())
