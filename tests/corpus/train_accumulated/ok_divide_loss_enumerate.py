# expect: passed=true code=ok
# why: Clears before the loop and after each step, back-propagates loss / accum_steps, steps every accum_steps micro-batches.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y)
        losses.append(loss.item())
        (loss / accum_steps).backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    return losses
