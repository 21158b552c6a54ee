# expect: passed=true code=ok
# why: no_grad as a decorator, a list of floats, then their mean.
import torch


@torch.no_grad()
def evaluate(model, loss_fn, batches):
    mode = model.training
    model.eval()
    losses = []
    for x, y in batches:
        losses.append(float(loss_fn(model(x), y)))
    model.train(mode)
    return sum(losses) / len(losses)
