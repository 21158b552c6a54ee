# expect: passed=false code=clips_gradients
# why: Clips the gradient norm at 1000, which these small models never reach: the values step() sees are unchanged, but the code clips.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1000.0)
    optimizer.step()
    return loss.item()
