# expect: passed=false code=not_eval
# why: Sets model.training = False by hand, which does not reach the dropout and batch norm submodules.
import torch


def predict(model, x):
    was = model.training
    model.training = False
    try:
        with torch.no_grad():
            return model(x)
    finally:
        model.training = was
