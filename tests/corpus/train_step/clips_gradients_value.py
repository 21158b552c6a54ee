# expect: passed=false code=clips_gradients
# why: clip_grad_value_ between backward and step clamps every gradient entry to [-0.05, 0.05].
from torch.nn.utils import clip_grad_value_


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    clip_grad_value_(model.parameters(), 0.05)
    optimizer.step()
    return loss.item()
