# expect: passed=false code=timeout
# why: A while loop over the micro-batches forgets 'i += 1', so it keeps training on the first one forever.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = [0.0] * len(micro_batches)
    optimizer.zero_grad()
    i = 0
    while i < len(micro_batches):
        x, y = micro_batches[i]
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses[i] = loss.item()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    return losses
