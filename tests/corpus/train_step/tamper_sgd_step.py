# expect: passed=false code=tampered
# why: Monkeypatches torch.optim.SGD.step with a wrapper that counts steps; the update itself is correct.
import torch

_original_sgd_step = torch.optim.SGD.step
STEP_COUNT = 0


def _counting_step(self, closure=None):
    global STEP_COUNT
    STEP_COUNT += 1
    return _original_sgd_step(self, closure)


torch.optim.SGD.step = _counting_step


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
