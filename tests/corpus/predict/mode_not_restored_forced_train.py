# expect: passed=false code=mode_not_restored
# why: Always calls model.train() afterwards, also when the model was in eval mode.
import torch


def predict(model, x):
    model.eval()
    try:
        with torch.no_grad():
            return model(x)
    finally:
        model.train()
