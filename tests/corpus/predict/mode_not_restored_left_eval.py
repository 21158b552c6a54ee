# expect: passed=false code=mode_not_restored
# why: Calls eval() and never switches back.
import torch


def predict(model, x):
    model.eval()
    with torch.no_grad():
        return model(x)
