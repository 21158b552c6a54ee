# expect: passed=false code=error
# why: Treats the list of micro-batches as a tensor (micro_batches.shape), which raises AttributeError.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    n = micro_batches.shape[0]
    losses = []
    optimizer.zero_grad()
    for i in range(n):
        x, y = micro_batches[i]
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    return losses
