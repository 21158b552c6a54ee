# expect: passed=false code=tampered
# why: Replaces optimizer.step on the instance with a printing wrapper (assigns a new step attribute).
import torch


def train_step(model, optimizer, loss_fn, x, y):
    if not getattr(optimizer, "_wrapped_by_me", False):
        real_step = optimizer.step

        def step(*args, **kwargs):
            print("optimizer step")
            return real_step(*args, **kwargs)

        optimizer.step = step
        optimizer._wrapped_by_me = True

    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
