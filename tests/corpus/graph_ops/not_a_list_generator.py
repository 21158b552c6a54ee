# expect: passed=false code=not_a_list
# why: yields the names instead of returning a list
from collections import deque


def graph_ops(t):
    if t.grad_fn is None:
        return
    seen, queue = {t.grad_fn}, deque([t.grad_fn])
    while queue:
        node = queue.popleft()
        yield type(node).__name__
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
