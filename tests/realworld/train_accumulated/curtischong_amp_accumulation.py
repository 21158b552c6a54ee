# expect: passed=false code=loss_not_scaled
# source: https://kaggle.curtischong.me/ml-concepts/gradient-accumulation ("Gradient accumulation" note: zero_grad, a loop of scaler.scale(loss).backward(), then scaler.step/update)
# adapted: one update per group of accum_steps micro-batches (the note's `for b in range(batch_size): r = batch[r]` loop); `loss = net(r)` -> loss_fn(model(x), y); the scaler made once at module level as torch.amp.GradScaler("cpu") (the note has no autocast); records each micro-batch loss.
# why: clears once per update before its micro-batches and steps once per group, but the losses are not divided by the number of micro-batches, so the step sees the sum of their gradients: loss_not_scaled, as its float32 twin.
import torch

scaler = torch.amp.GradScaler("cpu")


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    net = model
    losses = []
    for start in range(0, len(micro_batches), accum_steps):
        batch = micro_batches[start:start + accum_steps]
        optimizer.zero_grad()

        for b in range(len(batch)):
            r = batch[b]
            loss = loss_fn(net(r[0]), r[1])  # forward one subgraph
            losses.append(loss.item())
            scaler.scale(loss).backward()  # backward accumuate gradient

        scaler.step(optimizer)  # update net parameters
        scaler.update()
    return losses
