# expect: passed=false code=clears_after_step
# source: karpathy/nanochat/scripts/base_train.py, "single training step" (commit 00255c194d47108c3b50c11df19cbba089337ec3)
# adapted: `loss = model(x, y)` -> loss_fn(model(x), y); next(train_loader) prefetch -> next micro-batch; the per-group lr/momentum schedule and GradScaler branch dropped; train_loss.item() collected per micro-batch.
# why: scaling by grad_accum_steps and one step per group are right, but model.zero_grad(set_to_none=True) only runs after optimizer.step(): a dirty start leaks into the first update.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    grad_accum_steps = accum_steps
    losses = []
    train_loader = iter(micro_batches)
    x, y = next(train_loader)  # kick off load of the very first batch of data
    for step in range(len(micro_batches) // grad_accum_steps):
        for micro_step in range(grad_accum_steps):
            loss = loss_fn(model(x), y)
            train_loss = loss.detach()  # for logging
            losses.append(train_loss.item())
            loss = loss / grad_accum_steps  # each .backward() is a grad sum => normalize loss here
            loss.backward()
            x, y = next(train_loader, (None, None))  # prefetch the next batch while the GPU is busy with forward/backward
        # step the optimizer
        optimizer.step()
        model.zero_grad(set_to_none=True)
    return losses
