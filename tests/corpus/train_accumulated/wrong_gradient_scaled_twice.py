# expect: passed=false code=wrong_gradient
# why: Divides the loss by accum_steps and then divides the gradients by accum_steps again, so the step is too small.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            # make sure it really is the mean
            for p in model.parameters():
                if p.grad is not None:
                    p.grad /= accum_steps
            optimizer.step()
            optimizer.zero_grad()
    return losses
