# expect: passed=false code=crashes_on_leaf
# source: pytorch/pytorch/torch/autograd/graph.py, _register_logging_hooks_on_whole_graph (its iter_graph) and _get_grad_fn_or_grad_acc (commit 1a5f2e5079238e645bbe42ba6ad1f8b27c148ac0)
# adapted: t_outputs -> [t]; instead of registering a logging prehook on each node yielded by iter_graph, its class name is appended to a list; the GradientEdge branch of _get_grad_fn_or_grad_acc dropped.
# why: iter_graph is a correct breadth-first walk (deque, popleft, a seen set filled when a node is enqueued, None skipped) and lists each node once, but the roots come from _get_grad_fn_or_grad_acc: for a tensor with no grad_fn that does not require grad (a detached tensor) it fails its `assert node is not None` instead of giving [] (crashes_on_leaf); for a leaf that requires grad it starts from the leaf's AccumulateGrad and returns ['AccumulateGrad'] instead of [].
from collections import deque

import torch


def _get_grad_fn_or_grad_acc(t):
    if t.requires_grad and t.grad_fn is None:
        node = t.view_as(t).grad_fn.next_functions[0][0]  # type: ignore[union-attr]
    else:
        node = t.grad_fn
    assert node is not None
    return node


def graph_ops(t):
    t_outputs = [t]
    grad_fns = list(map(_get_grad_fn_or_grad_acc, t_outputs))

    def iter_graph(roots):
        if not roots:
            return
        seen = set()
        q = deque()
        for node in roots:
            if node is not None:
                seen.add(node)
                q.append(node)

        while q:
            node = q.popleft()
            for fn, _ in node.next_functions:
                if fn in seen or fn is None:
                    continue
                seen.add(fn)
                q.append(fn)

            yield node

    names = []
    for node in iter_graph(grad_fns):
        names.append(type(node).__name__)
    return names
