# expect: passed=false code=tampered
# why: Replaces nn.Module.eval with its own version.
import torch


def _eval(self):
    return self.train(False)


torch.nn.Module.eval = _eval


def predict(model, x):
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            return model(x)
    finally:
        model.train(was_training)
