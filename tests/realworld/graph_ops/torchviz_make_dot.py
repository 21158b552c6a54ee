# expect: passed=false code=depth_first
# source: szagoruyko/pytorchviz/torchviz/dot.py, make_dot / add_nodes (commit 0adcd83af8aa7ab36d6afd139cabbd9df598edb7)
# adapted: instead of dot.node(str(id(fn)), get_fn_name(fn, ...)) each visited node's class name is appended to a list; the variable/saved-tensor decorations are dropped. Kept the `seen` set, the None skip and the recursion.
# why: each node once, None skipped, [] for a leaf (the `if var.grad_fn` guard), but the traversal recurses into the first input before visiting siblings: a depth-first pre-order, not breadth-first.
import torch


def graph_ops(t):
    names = []
    seen = set()

    def add_nodes(fn):
        assert not torch.is_tensor(fn)
        if fn in seen:
            return
        seen.add(fn)

        # add the node for this grad_fn
        names.append(str(type(fn).__name__))

        # recurse
        if hasattr(fn, 'next_functions'):
            for u in fn.next_functions:
                if u[0] is not None:
                    add_nodes(u[0])

    if t.grad_fn:
        add_nodes(t.grad_fn)
    return names
