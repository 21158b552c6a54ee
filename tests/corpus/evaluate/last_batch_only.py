# expect: passed=false code=last_batch_only
# why: Overwrites the loss at every batch and returns the last one.
import torch


def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for x, y in batches:
            loss = loss_fn(model(x), y).item()
    model.train(was_training)
    return loss
