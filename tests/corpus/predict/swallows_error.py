# expect: passed=false code=swallows_error
# why: Catches every exception and returns None instead of letting it propagate.
import torch


def predict(model, x):
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            return model(x)
    except Exception as err:
        print("prediction failed:", err)
        return None
    finally:
        model.train(was_training)
