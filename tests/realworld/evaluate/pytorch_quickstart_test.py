# expect: passed=false code=mode_not_restored
# source: pytorch/tutorials/beginner_source/basics/quickstart_tutorial.py, test(dataloader, model, loss_fn) (commit 07a339ece661a2b304b8834780470f522eed1e02)
# adapted: dataloader -> batches (num_batches = len(batches)); dropped the accuracy counting and print; returns test_loss.
# why: eval mode, no_grad, equal weight per batch, float result: all right, except model.eval() is never undone, so a model that was training is left in eval mode.
import torch


def evaluate(model, loss_fn, batches):
    num_batches = len(batches)
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for X, y in batches:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
    test_loss /= num_batches
    return test_loss
