# expect: passed=false code=grad_left_off
# why: Switches tracking off globally with set_grad_enabled(False) and never back on.
import torch


def predict(model, x):
    was_training = model.training
    model.eval()
    torch.set_grad_enabled(False)
    try:
        return model(x)
    finally:
        model.train(was_training)
