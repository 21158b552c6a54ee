# expect: passed=true code=ok
# source: https://discuss.pytorch.org/t/pytorch-gradient-accumulation/55955 (quotes Thomas Wolf's gradient-accumulation gist from "Training Neural Nets on Larger Batches", also copied in gist.github.com forks)
# adapted: training_set -> micro_batches, loss_function -> loss_fn, accumulation_steps -> accum_steps; records the loss before the division.
# why: model.zero_grad() once before the loop (clears a dirty start) and again right after each step; each loss is divided by accumulation_steps, so each update uses the mean of its micro-batch gradients.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    accumulation_steps = accum_steps
    losses = []
    model.zero_grad()                                   # Reset gradients tensors
    for i, (inputs, labels) in enumerate(micro_batches):
        predictions = model(inputs)                     # Forward pass
        loss = loss_fn(predictions, labels)             # Compute loss function
        losses.append(loss.item())
        loss = loss / accumulation_steps                # Normalize our loss (if averaged)
        loss.backward()                                 # Backward pass
        if (i+1) % accumulation_steps == 0:             # Wait for several backward steps
            optimizer.step()                            # Now we can do an optimizer step
            model.zero_grad()                           # Reset gradients tensors
    return losses
