# expect: passed=false code=swapped_loss_args
# why: Everything right except the loss, called as loss_fn(y, output).
import torch


def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            losses = [loss_fn(y, model(x)).item() for x, y in batches]
    finally:
        model.train(was_training)
    return sum(losses) / len(losses)
