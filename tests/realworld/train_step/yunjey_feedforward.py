# expect: passed=true code=ok
# source: yunjey/pytorch-tutorial/tutorials/01-basics/feedforward_neural_network/main.py (commit 78c6afe681c4ff5095ef13662c02a7e369b1bcbd); the exact block is quoted in yunjey/pytorch-tutorial#238
# adapted: images/labels -> x/y (dropped the reshape to 28*28 and .to(device)); criterion -> loss_fn; returns loss.item().
# why: zero_grad() sits after the forward but before backward, which is all that matters: the step sees only this batch's gradient.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    # Forward pass
    outputs = model(x)
    loss = loss_fn(outputs, y)

    # Backward and optimize
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
