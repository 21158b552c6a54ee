# expect: passed=false code=error
# why: A missing colon.
import torch


def predict(model, x)
    with torch.no_grad():
        return model(x)
