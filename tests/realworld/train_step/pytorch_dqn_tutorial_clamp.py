# expect: passed=false code=clips_gradients
# source: pytorch/tutorials/intermediate_source/reinforcement_q_learning.py, optimize_model() (commit deef00a631add29563846f231d59f454b2f7f007)
# adapted: the replay-memory batch and the target-network Q values -> (x, y): state_action_values = model(x), expected values = y; F.smooth_l1_loss -> loss_fn; policy_net -> model; returns loss.item() (the tutorial returns nothing).
# why: zero_grad() before backward() is right, but each gradient is clamped in place to [-1, 1] (param.grad.data.clamp_) before step(): a clip by hand, clips_gradients.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    policy_net = model
    state_action_values = policy_net(x)
    expected_state_action_values = y

    # Compute Huber loss
    loss = loss_fn(state_action_values, expected_state_action_values)

    # Optimize the model
    optimizer.zero_grad()
    loss.backward()
    for param in policy_net.parameters():
        param.grad.data.clamp_(-1, 1)
    optimizer.step()
    return loss.item()
