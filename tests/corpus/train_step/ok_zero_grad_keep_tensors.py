# expect: passed=true code=ok
# why: Uses zero_grad(set_to_none=False) before the forward pass and returns float(loss.detach()).
import torch


def train_step(model, optimizer, loss_fn, x, y):
    # zero the existing gradient tensors instead of dropping them
    optimizer.zero_grad(set_to_none=False)
    output = model(x)
    loss = loss_fn(output, y)
    loss.backward()
    optimizer.step()
    return float(loss.detach())
