# expect: passed=false code=error
# why: The unanswered stub.
def predict(model, x):
    raise NotImplementedError()
