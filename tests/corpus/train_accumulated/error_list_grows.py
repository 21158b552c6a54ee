# expect: passed=false code=error
# why: A history buffer grows in a loop whose condition is always true, exhausting memory.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    # reserve space for the loss history (meant: until it is big enough)
    history = []
    while len(history) >= 0:
        history.append([0.0] * 10_000_000)
    losses = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    return losses
