# expect: passed=false code=clears_once
# why: Calls optimizer.zero_grad() once before the loop and never again, so later updates include earlier gradients.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    optimizer.zero_grad()
    losses = []
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.step()
    return losses
