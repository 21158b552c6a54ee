# expect: passed=false code=loss_not_scaled
# why: Sums the losses of a chunk and calls backward once on the total, giving the sum of gradients.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    for start in range(0, len(micro_batches), accum_steps):
        optimizer.zero_grad()
        total = 0
        for x, y in micro_batches[start:start + accum_steps]:
            loss = loss_fn(model(x), y)
            losses.append(loss.item())
            total = total + loss
        total.backward()
        optimizer.step()
    return losses
