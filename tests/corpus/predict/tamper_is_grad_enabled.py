# expect: passed=false code=tampered
# why: Makes torch.is_grad_enabled always answer False.
import torch

torch.is_grad_enabled = lambda: False


def predict(model, x):
    was_training = model.training
    model.eval()
    try:
        return model(x).detach()
    finally:
        model.train(was_training)
