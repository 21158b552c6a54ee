# expect: passed=false code=clears_some_params
# why: At each update clears only parameters with more than one dimension (weights), never the biases.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    for i, (x, y) in enumerate(micro_batches):
        if i % accum_steps == 0:
            for p in model.parameters():
                if p.dim() > 1:      # only the weight matrices need a reset
                    p.grad = None
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.step()
    return losses
