# expect: passed=false code=swapped_loss_args
# source: vwxyzjn/cleanrl/cleanrl/dqn.py, "ALGO LOGIC: training" (commit 020cf0e53305793c8e39f4b68f9ac1ae9099f004)
# adapted: old_val = q_network(data.observations).gather(...).squeeze() -> model(x); td_target (computed from the target network under no_grad) -> y; F.mse_loss -> loss_fn, keeping its argument order (target first); the writer/logging dropped; returns loss.item().
# why: the clearing is right (zero_grad, backward, step, forward done before), but the loss is called as loss_fn(td_target, old_val), target first: harmless with MSE, wrong with cross-entropy, so swapped_loss_args.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    q_network = model
    td_target = y
    old_val = q_network(x)
    loss = loss_fn(td_target, old_val)

    # optimize the model
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
