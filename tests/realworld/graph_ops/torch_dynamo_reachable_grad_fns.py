# expect: passed=false code=depth_first
# source: pytorch/pytorch/torch/_dynamo/output_graph.py, collect_reachable_grad_fns, read in the torch 2.13.0 wheel the course pins (torch/_dynamo/output_graph.py line 280); the search tool's stored copy of that path (commit e0f09ffc906d0ce0469c0c2eaddb25b10b2ec524) predates the function
# adapted: tensors_with_sources -> [(t, None)], stop_at empty; the function returns the set `visited`, whose order is arbitrary, so each node's class name is also appended to a list at the moment it is added to `visited` (the order the walk visits), and that list is returned.
# why: a stack walk (list.pop() from the end) that pushes every non-None child and skips nodes already visited when popped: each node once, [] when grad_fn is None, but in a depth-first order that also takes the children last-first, not breadth-first.
import torch


def graph_ops(t):
    tensors_with_sources = [(t, None)]
    stop_at = None
    names = []

    if stop_at is None:
        stop_at = set()

    visited = set()
    stack = []

    for tensor, _ in tensors_with_sources:
        if isinstance(tensor, torch.Tensor):
            grad_fn = tensor.grad_fn
            if grad_fn is not None:
                stack.append(grad_fn)

    while stack:
        node = stack.pop()
        if node in visited:
            continue
        # Stop traversal at stop_at nodes and don't include them
        # in consumed grad_fn list.
        if node in stop_at:
            continue
        visited.add(node)
        names.append(type(node).__name__)
        for next_fn, _ in node.next_functions:
            if next_fn is not None:
                stack.append(next_fn)
    return names
