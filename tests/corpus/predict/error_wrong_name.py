# expect: passed=false code=error
# why: Defines the function under another name.
import torch


def inference(model, x):
    model.eval()
    with torch.no_grad():
        return model(x)
