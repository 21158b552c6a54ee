# expect: passed=true code=ok
# source: pytorch/examples/time_sequence_prediction/train.py (commit 04b1f3cec923d40972d998a7ed3c00c1b37e765e)
# adapted: criterion -> loss_fn, seq -> model, input/target -> x/y; returns the loss that optimizer.step(closure) hands back. Kept the print inside the closure.
# why: the closure clears, computes the loss and calls backward; step(closure) runs it once for SGD/Adam, so the gradient at the update is this batch's alone.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    def closure():
        optimizer.zero_grad()
        out = model(x)
        loss = loss_fn(out, y)
        print('loss:', loss.item())
        loss.backward()
        return loss
    loss = optimizer.step(closure)
    return loss.item()
