# expect: passed=true code=ok
# why: Chunked loop: zero_grad per chunk, backward of the plain loss, then divides every .grad by accum_steps before step.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    for start in range(0, len(micro_batches), accum_steps):
        optimizer.zero_grad()
        for x, y in micro_batches[start:start + accum_steps]:
            loss = loss_fn(model(x), y)
            loss.backward()
            losses.append(float(loss.detach()))
        # turn the summed gradient into the mean
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad.div_(accum_steps)
        optimizer.step()
    return losses
