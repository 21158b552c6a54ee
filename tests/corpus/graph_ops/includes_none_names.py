# expect: passed=false code=includes_none
# why: lists NoneType for inputs that do not require grad
from collections import deque


def graph_ops(t):
    if t.grad_fn is None:
        return []
    seen, queue, out = {t.grad_fn}, deque([t.grad_fn]), []
    while queue:
        node = queue.popleft()
        out.append(type(node).__name__)
        if node is None:
            continue
        for child, _ in node.next_functions:
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return out
