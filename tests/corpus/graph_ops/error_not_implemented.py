# expect: passed=false code=error
# why: the unanswered stub raises NotImplementedError
def graph_ops(t):
    raise NotImplementedError()
