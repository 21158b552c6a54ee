# expect: passed=false code=error
# why: The unanswered stub.
def head_forward(backbone, head, x):
    raise NotImplementedError()
