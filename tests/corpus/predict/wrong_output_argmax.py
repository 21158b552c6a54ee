# expect: passed=false code=wrong_output
# why: Returns the predicted class indices instead of the model's output.
import torch


def predict(model, x):
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            return model(x).argmax(dim=1)
    finally:
        model.train(was_training)
