# expect: passed=false code=never_clears
# why: Never clears and clips the norm to 0.1 before each step: the clip hides the pile-up in what step() sees, but not in what backward() left.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    loss = loss_fn(model(x), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
    optimizer.step()
    return loss.item()
