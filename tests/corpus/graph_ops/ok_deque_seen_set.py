# expect: passed=true code=ok
# why: breadth-first with a deque and a set of visited nodes
from collections import deque


def graph_ops(t):
    if t.grad_fn is None:
        return []
    seen = {t.grad_fn}
    queue = deque([t.grad_fn])
    names = []
    while queue:
        node = queue.popleft()
        names.append(type(node).__name__)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return names
