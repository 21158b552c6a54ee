# expect: passed=false code=timeout
# why: After the update it waits in a sleep loop that catches KeyboardInterrupt and keeps going forever.
import time

import torch


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    # wait for the log to be flushed (my notebook needed this)
    flushed = False
    while not flushed:
        try:
            time.sleep(0.5)
        except KeyboardInterrupt:
            print("interrupted, still waiting...")
            continue
    return loss.item()
