# expect: passed=false code=clears_every_micro_batch
# why: Calls zero_grad() at the top of every micro-batch, so only the last micro-batch of each group reaches step().
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    for i, (x, y) in enumerate(micro_batches):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.step()
    return losses
