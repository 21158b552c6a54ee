# expect: passed=true code=ok
# source: pytorch/examples/reinforcement_learning/reinforce.py, select_action() + finish_episode() (commit 2f5815e164db37800dbfac93fc3783233f7bef6b)
# adapted: the forward passes made in select_action (saved_log_probs) -> model(x) before the update; the policy loss sum(-log_prob * R) -> loss_fn(output, y); policy/optimizer -> model/optimizer; the reward bookkeeping dropped; returns policy_loss.item().
# why: the forward pass runs first, then zero_grad() (before backward, so a dirty start is cleared), backward(), step(): one correct update.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    policy = model
    saved_output = policy(x)  # select_action: probs = policy(state)

    # finish_episode
    optimizer.zero_grad()
    policy_loss = loss_fn(saved_output, y)
    policy_loss.backward()
    optimizer.step()
    return policy_loss.item()
