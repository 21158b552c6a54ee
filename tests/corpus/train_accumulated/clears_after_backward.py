# expect: passed=false code=clears_after_backward
# why: At each update boundary calls zero_grad() right before step(), so the step sees no gradient.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.zero_grad()
            optimizer.step()
    return losses
