# expect: passed=false code=steps_every_micro_batch
# why: Chunked loop with the step() indented inside the inner loop, so it steps after each micro-batch.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    for start in range(0, len(micro_batches), accum_steps):
        optimizer.zero_grad()
        for x, y in micro_batches[start:start + accum_steps]:
            loss = loss_fn(model(x), y)
            (loss / accum_steps).backward()
            losses.append(loss.item())
            optimizer.step()
    return losses
