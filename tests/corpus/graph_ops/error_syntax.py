# expect: passed=false code=error
# why: a missing colon is a syntax error
def graph_ops(t)
    return []
