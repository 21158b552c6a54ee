# expect: passed=true code=ok
# source: cepessh/adaptive_mcmc/adaptive_mcmc/tools/computational_graph.py, print_graph_with_tensors / count_graph_nodes (commit 71f088872fb67095e4520c02ce179d58b7f35ffa)
# adapted: output_tensor -> t; the print of `type(fn).__name__` becomes an append; the `.variable` shape print dropped.
# why: a deque popped from the left, None and already-visited nodes skipped, parents enqueued in next_functions order: a breadth-first visit listing each node once, [] when grad_fn is None.
from collections import deque

import torch


def graph_ops(t):
    visited = set()
    queue = deque([t.grad_fn])
    names = []

    while queue:
        fn = queue.popleft()
        if fn is None or fn in visited:
            continue
        visited.add(fn)
        names.append(type(fn).__name__)

        # enqueue parents
        for parent_fn, _ in fn.next_functions:
            if parent_fn is not None:
                queue.append(parent_fn)
    return names
