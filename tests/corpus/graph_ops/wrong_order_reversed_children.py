# expect: passed=false code=wrong_order
# why: breadth-first but takes next_functions in reverse order
from collections import deque


def graph_ops(t):
    if t.grad_fn is None:
        return []
    seen, queue, out = {t.grad_fn}, deque([t.grad_fn]), []
    while queue:
        node = queue.popleft()
        out.append(type(node).__name__)
        for child, _ in reversed(node.next_functions):
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return out
