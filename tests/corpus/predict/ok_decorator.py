# expect: passed=true code=ok
# why: Uses torch.no_grad() as a decorator on the function itself.
import torch


@torch.no_grad()
def predict(model, x):
    mode = model.training
    model.eval()
    try:
        result = model(x)
    finally:
        model.train(mode)
    return result
