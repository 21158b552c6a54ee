# expect: passed=false code=clears_every_micro_batch
# why: Chunked loop whose inner loop sets p.grad = None before each micro-batch, so only the last one counts.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    chunks = [micro_batches[i:i + accum_steps] for i in range(0, len(micro_batches), accum_steps)]
    for chunk in chunks:
        for x, y in chunk:
            for p in model.parameters():
                p.grad = None
            loss = loss_fn(model(x), y)
            (loss / accum_steps).backward()
            losses.append(float(loss.detach()))
        optimizer.step()
    return losses
