# expect: passed=false code=not_eval
# why: no_grad without eval(): dropout stays active.
import torch


def predict(model, x):
    with torch.no_grad():
        return model(x)
