# expect: passed=false code=error
# why: the unanswered stub raises NotImplementedError
def make_trainable(values):
    raise NotImplementedError()
