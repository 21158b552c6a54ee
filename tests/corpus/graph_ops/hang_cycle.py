# expect: passed=false code=timeout
# why: keeps re-queueing the root forever
def graph_ops(t):
    queue = [t.grad_fn]
    while True:
        queue.append(queue[0])
        queue.pop(0)
