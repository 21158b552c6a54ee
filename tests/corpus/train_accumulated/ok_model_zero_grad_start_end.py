# expect: passed=true code=ok
# why: Indexes updates with range(), model.zero_grad(set_to_none=False) at start and after every step, loss.div(accum_steps).
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    n_updates = len(micro_batches) // accum_steps
    model.zero_grad(set_to_none=False)
    for u in range(n_updates):
        for k in range(accum_steps):
            x, y = micro_batches[u * accum_steps + k]
            loss = loss_fn(model(x), y)
            loss.div(accum_steps).backward()
            losses.append(loss.item())
        optimizer.step()
        model.zero_grad(set_to_none=False)
    return losses
