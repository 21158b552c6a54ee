# expect: passed=true code=ok
# why: correct, and warns and writes to stderr on the way
import sys
import warnings
from collections import deque


def graph_ops(t):
    warnings.warn("walking a graph")
    sys.stderr.write("graph_ops called\n")
    if t.grad_fn is None:
        return []
    seen, queue, out = {t.grad_fn}, deque([t.grad_fn]), []
    while queue:
        node = queue.popleft()
        out.append(type(node).__name__)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return out
