# expect: passed=false code=duplicates
# why: breadth-first without remembering visited nodes lists shared nodes again
from collections import deque


def graph_ops(t):
    if t.grad_fn is None:
        return []
    queue, out = deque([t.grad_fn]), []
    while queue:
        node = queue.popleft()
        out.append(type(node).__name__)
        for child, _ in node.next_functions:
            if child is not None:
                queue.append(child)
    return out
