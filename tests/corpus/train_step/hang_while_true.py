# expect: passed=false code=timeout
# why: Does the update, then spins in 'while True: pass' left over from debugging and never returns.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    # keep the process alive so I can look at the output
    while True:
        pass
    return loss.item()
