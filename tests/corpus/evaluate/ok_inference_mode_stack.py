# expect: passed=true code=ok
# why: Stacks the batch losses under inference_mode and takes their mean with .item().
import torch


def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    with torch.inference_mode():
        losses = torch.stack([loss_fn(model(x), y) for x, y in batches])
    model.train(was_training)
    return losses.mean().item()
