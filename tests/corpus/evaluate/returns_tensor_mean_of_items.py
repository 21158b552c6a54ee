# expect: passed=false code=returns_tensor
# why: Calls .item() on every batch loss, then returns the mean of a tensor of them: a 0-d tensor, not a float.
import torch


def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    losses = torch.zeros(len(batches))
    with torch.no_grad():
        for k, (x, y) in enumerate(batches):
            losses[k] = loss_fn(model(x), y).item()
    model.train(was_training)
    return losses.mean()
