# expect: passed=false code=missing_leaves
# why: skips the AccumulateGrad nodes of the leaves
from collections import deque


def graph_ops(t):
    if t.grad_fn is None:
        return []
    seen, queue, out = {t.grad_fn}, deque([t.grad_fn]), []
    while queue:
        node = queue.popleft()
        out.append(type(node).__name__)
        for child, _ in node.next_functions:
            if child is not None and child not in seen and type(child).__name__ != "AccumulateGrad":
                seen.add(child)
                queue.append(child)
    return out
