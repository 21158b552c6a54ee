# expect: passed=false code=crashes_on_leaf
# why: reads t.grad_fn.next_functions without checking for None
from collections import deque


def graph_ops(t):
    queue, seen, out = deque([t.grad_fn]), {t.grad_fn}, []
    first = t.grad_fn.next_functions
    while queue:
        node = queue.popleft()
        out.append(type(node).__name__)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return out
