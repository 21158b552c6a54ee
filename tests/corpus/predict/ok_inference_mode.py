# expect: passed=true code=ok
# why: inference_mode also turns tracking off; the mode is restored in finally.
import torch


def predict(model, x):
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            out = model(x)
    finally:
        if was_training:
            model.train()
    return out
