# expect: passed=false code=detach_only
# why: Runs the forward pass with tracking on and detaches the result afterwards.
def predict(model, x):
    was_training = model.training
    model.eval()
    try:
        return model(x).detach()
    finally:
        model.train(was_training)
