# expect: passed=false code=clears_every_micro_batch
# source: https://huggingface.co/docs/accelerate/v0.11.0/gradient_accumulation ("very simplistic PyTorch training loop that performs gradient accumulation every two batches", v0.11.0 text)
# adapted: training_dataloader -> micro_batches, loss_function -> loss_fn, gradient_accumulation_steps -> accum_steps; dropped .to(device) and scheduler.step(); records the unscaled loss. The stored excerpt ends at loss.backward(); the `if (index + 1) % ... : optimizer.step()` tail is the one the page shows in every version.
# why: optimizer.zero_grad() is the first line of every iteration, so each micro-batch wipes the previous ones' gradients and the step sees only the last micro-batch (divided by accum_steps). Later versions of the page moved zero_grad after the step.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    gradient_accumulation_steps = accum_steps
    losses = []
    for index, batch in enumerate(micro_batches):
        optimizer.zero_grad()
        inputs, targets = batch
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        losses.append(loss.item())
        loss = loss / gradient_accumulation_steps
        loss.backward()
        if (index + 1) % gradient_accumulation_steps == 0:
            optimizer.step()
    return losses
