# expect: passed=true code=ok
# source: pytorch/examples/mnist/main.py (commit 09654b86fcd7b489840546d9ad0cf9b629dc50d0)
# adapted: one iteration of train(); F.nll_loss(output, target) -> loss_fn(output, y); returns loss.item() (the original only prints it). Kept model.train() at the top.
# why: zero_grad() before the forward, then backward and exactly one step(): at step() every .grad is this batch's gradient, also from a dirty start.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    model.train()
    optimizer.zero_grad()
    output = model(x)
    loss = loss_fn(output, y)
    loss.backward()
    optimizer.step()
    return loss.item()
