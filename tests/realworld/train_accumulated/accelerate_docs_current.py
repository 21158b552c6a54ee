# expect: passed=false code=clears_after_step
# source: https://huggingface.co/docs/accelerate/usage_guides/gradient_accumulation (the plain-PyTorch loop before the Accelerate version)
# adapted: training_dataloader -> micro_batches, loss_function -> loss_fn, gradient_accumulation_steps -> accum_steps; dropped .to(device) and scheduler.step(); records the unscaled loss.
# why: division by gradient_accumulation_steps and one step per group are right, but zero_grad only follows each step; nothing clears before the first micro-batch, so a dirty start leaks into the first update.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    gradient_accumulation_steps = accum_steps
    losses = []
    for index, batch in enumerate(micro_batches):
        inputs, targets = batch
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        losses.append(loss.item())
        loss = loss / gradient_accumulation_steps
        loss.backward()
        if (index + 1) % gradient_accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    return losses
