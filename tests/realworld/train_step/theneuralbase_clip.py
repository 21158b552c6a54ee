# expect: passed=false code=clips_gradients
# source: https://theneuralbase.com/pytorch/learn/beginner/forward-pass-loss-backward-step/ ("PRODUCTION TIP" loop)
# adapted: X/y/criterion -> x/y/loss_fn; one epoch; returns loss.item(). Kept clip_grad_norm_(max_norm=1.0) between backward and step.
# why: clearing is correct (start of the iteration), but the gradient is clipped before step(), which the exercise names clips_gradients whatever the norm turns out to be.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()  # FIX: Call at START of loop, not end.
    output = model(x)
    loss = loss_fn(output, y)
    loss.backward()
    # FIX: For gradient clipping in production, add before step() to prevent exploding gradients
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()
    return loss.item()
