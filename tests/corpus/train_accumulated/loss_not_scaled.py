# expect: passed=false code=loss_not_scaled
# why: Back-propagates the plain loss of every micro-batch, so each step uses the sum of gradients, not the mean.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y)
        loss.backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    return losses
