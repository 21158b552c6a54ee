# expect: passed=false code=error
# why: the unanswered stub raises NotImplementedError
def freeze_all_but(model, trainable):
    raise NotImplementedError()
