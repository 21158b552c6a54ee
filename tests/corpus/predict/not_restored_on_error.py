# expect: passed=false code=not_restored_on_error
# why: Restores the mode after the forward pass but not in a finally block.
import torch


def predict(model, x):
    was_training = model.training
    model.eval()
    with torch.no_grad():
        out = model(x)
    model.train(was_training)
    return out
