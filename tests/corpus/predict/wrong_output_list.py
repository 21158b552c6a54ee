# expect: passed=false code=wrong_output
# why: Returns a Python list instead of the output tensor.
import torch


def predict(model, x):
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            return model(x).tolist()
    finally:
        model.train(was_training)
