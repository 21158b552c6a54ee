# expect: passed=false code=never_clears
# why: Scales the loss and steps every accum_steps micro-batches but never clears, so gradients pile up across updates.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            # gradients are accumulated on purpose, so no zero_grad
    return losses
