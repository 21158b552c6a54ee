# expect: passed=true code=ok
# why: Remembers the mode, eval() and no_grad, restores in finally.
import torch


def predict(model, x):
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            return model(x)
    finally:
        model.train(was_training)
