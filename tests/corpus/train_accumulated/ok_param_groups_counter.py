# expect: passed=true code=ok
# why: Counts micro-batches, sets p.grad = None over optimizer.param_groups at the start of each update, scales the loss.
import torch


def _clear(optimizer):
    for group in optimizer.param_groups:
        for p in group["params"]:
            p.grad = None


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    count = 0
    for x, y in micro_batches:
        if count == 0:
            _clear(optimizer)
        loss = loss_fn(model(x), y)
        (loss * (1.0 / accum_steps)).backward()
        losses.append(loss.item())
        count += 1
        if count == accum_steps:
            optimizer.step()
            count = 0
    return losses
