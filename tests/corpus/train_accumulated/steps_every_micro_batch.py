# expect: passed=false code=steps_every_micro_batch
# why: Clears every accum_steps micro-batches but calls optimizer.step() after every micro-batch.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses.append(loss.item())
        optimizer.step()
        if (i + 1) % accum_steps == 0:
            optimizer.zero_grad()
    return losses
