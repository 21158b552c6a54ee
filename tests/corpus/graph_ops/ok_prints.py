# expect: passed=true code=ok
# why: correct, and prints every node it visits
from collections import deque


def graph_ops(t):
    print("walking the graph of", t.shape)
    if t.grad_fn is None:
        print("no grad_fn: nothing to walk")
        return []
    seen, queue, out = {t.grad_fn}, deque([t.grad_fn]), []
    while queue:
        node = queue.popleft()
        print("visit", node)
        out.append(type(node).__name__)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return out
