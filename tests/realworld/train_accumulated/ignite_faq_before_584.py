# expect: passed=false code=clears_every_micro_batch
# source: pytorch/ignite/docs/source/faq.rst, "Gradients accumulation" as it read before pytorch/ignite#584 (commit 85d09e9b6dadeba34958f0525cd47571aeb83a01; the bug is pytorch/ignite#583)
# adapted: the Engine's update_fn(engine, batch) called once per micro-batch, engine.state.iteration -> the 1-based micro-batch count; prepare_batch -> the (x, y) pair; criterion -> loss_fn; accumulation_steps -> accum_steps; records loss.item() * accumulation_steps (the FAQ returns the divided loss to the Engine).
# why: zero_grad() runs when iteration % accumulation_steps == 0, i.e. at the LAST micro-batch of each group, just before its backward(): the first accum_steps - 1 gradients are wiped and each step sees only the last micro-batch's gradient divided by accum_steps (clears_every_micro_batch in effect; a dirty start's stale gradients are wiped with them).
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    accumulation_steps = accum_steps
    criterion = loss_fn
    losses = []

    def update_fn(iteration, batch):
        model.train()

        if iteration % accumulation_steps == 0:
            optimizer.zero_grad()

        x, y = batch
        y_pred = model(x)
        loss = criterion(y_pred, y) / accumulation_steps
        loss.backward()

        if iteration % accumulation_steps == 0:
            optimizer.step()

        return loss.item()

    for iteration, batch in enumerate(micro_batches, start=1):
        losses.append(update_fn(iteration, batch) * accumulation_steps)
    return losses
