# expect: passed=false code=loss_not_scaled
# source: https://leyaa.ai/codefly/learn/pytorch/part-1/pytorch-gradient-accumulation-and-zeroing ("Gradient accumulation and zeroing in PyTorch")
# adapted: dataloader items -> (x, y) pairs of micro_batches; accumulation_steps -> accum_steps; records loss.item().
# why: zero_grad once before the loop and after each step is right, but the loss is never divided by accumulation_steps: each update uses the SUM of the micro-batch gradients, not their mean.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    accumulation_steps = accum_steps
    losses = []
    optimizer.zero_grad()
    for i, (data, labels) in enumerate(micro_batches):
        outputs = model(data)
        loss = loss_fn(outputs, labels)
        losses.append(loss.item())
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    return losses
