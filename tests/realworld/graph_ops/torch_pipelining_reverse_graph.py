# expect: passed=false code=wrong_nodes
# source: pytorch/pytorch/torch/distributed/pipelining/_backward.py, construct_reverse_graph and _get_grad_fn_or_grad_acc, as stage_backward_input calls them (commit 060ca5d783bd6935f20d77522ebb416a5c3c3d86)
# adapted: stage_outputs_or_loss -> [t]; the roots are built as stage_backward_input builds them (filter(None, map(_get_grad_fn_or_grad_acc, ...))); construct_reverse_graph also appends each node's class name when it is popped from the queue, and the list is returned instead of reverse_edges_dict.
# why: the walk is breadth-first (deque, popleft, next_functions in order, None skipped) and enqueues a node only the first time it is reached (while its reverse-edge list is still empty), so graphs with a grad_fn are listed right, each node once, and a detached tensor gives []. But for a leaf that requires grad, _get_grad_fn_or_grad_acc returns the leaf's AccumulateGrad (made through view_as), so the result is ['AccumulateGrad'] instead of []: nodes for a leaf (wrong_nodes).
import collections

import torch


def _get_grad_fn_or_grad_acc(t):
    """
    Get the grad function or grad accumulator for a tensor.

    Accumulate grad nodes are lazily created, so we need to a
    dummy view in order to trigger its creation.
    """
    if t.requires_grad and t.grad_fn is None:
        # if no grad function (leaf tensors) we use view
        viewed_t = t.view_as(t)
        grad_fn = viewed_t.grad_fn
        if grad_fn is not None:
            return grad_fn.next_functions[0][0]
        else:
            raise RuntimeError(
                "Attempted to get grad_fn, but got None."
                "Is this being created in a no-grad context?"
            )
    else:
        return t.grad_fn


def graph_ops(t):
    stage_outputs_or_loss = [t]
    stage_output_grad_fns = list(
        filter(None, map(_get_grad_fn_or_grad_acc, stage_outputs_or_loss))
    )
    names = []

    def construct_reverse_graph(roots):
        q = collections.deque()
        root_seen = set()
        reverse_edges_dict = collections.defaultdict(list)
        for node in roots:
            if node is not None and node not in root_seen:
                q.append(node)
                root_seen.add(node)
        while q:
            node = q.popleft()
            names.append(type(node).__name__)
            for fn, _ in node.next_functions:
                if fn is not None:
                    if len(reverse_edges_dict[fn]) == 0:
                        q.append(fn)
                    reverse_edges_dict[fn].append(node)
        return reverse_edges_dict

    construct_reverse_graph(stage_output_grad_fns)
    return names
