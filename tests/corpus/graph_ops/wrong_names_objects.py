# expect: passed=false code=wrong_names
# why: returns the node objects instead of their class names
from collections import deque


def graph_ops(t):
    if t.grad_fn is None:
        return []
    seen, queue, out = {t.grad_fn}, deque([t.grad_fn]), []
    while queue:
        node = queue.popleft()
        out.append(node)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return out
