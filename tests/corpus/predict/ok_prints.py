# expect: passed=true code=ok
# why: Correct, and prints what it does.
import torch


def predict(model, x):
    print("predict: input shape", tuple(x.shape), "training before:", model.training)
    before = model.training
    model.eval()
    try:
        with torch.no_grad():
            y = model(x)
            print("output requires_grad:", y.requires_grad)
            return y
    finally:
        model.train(before)
        print("training after:", model.training)
