# expect: passed=false code=error
# why: Raises NotImplementedError, the unanswered stub.
def input_gradient(model, x):
    raise NotImplementedError()
