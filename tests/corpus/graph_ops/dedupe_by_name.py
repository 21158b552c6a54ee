# expect: passed=false code=dedupe_by_name
# why: remembers class names, so two different leaves count once
from collections import deque


def graph_ops(t):
    if t.grad_fn is None:
        return []
    queue, out = deque([t.grad_fn]), []
    while queue:
        node = queue.popleft()
        name = type(node).__name__
        if name in out:
            continue
        out.append(name)
        for child, _ in node.next_functions:
            if child is not None:
                queue.append(child)
    return out
