# expect: passed=false code=error
# why: Correct accumulation but prints the losses instead of returning them, so the function returns None.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    print(losses)
