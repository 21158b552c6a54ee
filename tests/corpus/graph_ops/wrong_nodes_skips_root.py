# expect: passed=false code=wrong_nodes
# why: starts from the children of t.grad_fn and forgets t.grad_fn itself
from collections import deque


def graph_ops(t):
    if t.grad_fn is None:
        return []
    start = [c for c, _ in t.grad_fn.next_functions if c is not None]
    seen, queue, out = set(start), deque(start), []
    while queue:
        node = queue.popleft()
        out.append(type(node).__name__)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return out
