# ruff: noqa: E501 - one meaning per line, as the tables of docs/codes.md show them
"""The declaration of ``graph_ops`` (see ``gradexercises``): lesson 1, its codes, its points."""

from gradexercises import N_, Exercise

# fmt: off
EXERCISE = Exercise(
    name="graph_ops",
    lesson="lesson1_requires_grad",
    signature="graph_ops(t) -> list[str]",
    codes={
        "ok": N_("correct"),
        "crashes_on_leaf": N_("raised on a tensor whose `grad_fn` is `None` instead of returning `[]`"),
        "includes_none": N_('`None` entries of `next_functions` were listed (as `None`/`"NoneType"`) or expanded (crash)'),
        "not_a_list": N_("returned something other than a list (a tuple, a generator, `None`)"),
        "wrong_names": N_("node objects, reprs (`<MulBackward0 object at ...>`) or C++ names (`torch::autograd::AccumulateGrad` from `node.name()`) instead of `type(node).__name__`"),
        "duplicates": N_("a node reached by several paths is listed more than once"),
        "dedupe_by_name": N_("distinct nodes with the same class name (two leaves' `AccumulateGrad`) listed once"),
        "depth_first": N_("the right nodes in a depth-first order (recursive or stack)"),
        "wrong_order": N_("the right nodes in another order (e.g. children reversed)"),
        "missing_leaves": N_("the `AccumulateGrad` nodes are missing"),
        "wrong_nodes": N_("other lists (e.g. `t.grad_fn` itself missing, nodes for a leaf)"),
    },
    revisit={
        "": "5. Walking the graph: `next_functions`",
        "crashes_on_leaf": "4. Leaves",
        "missing_leaves": "5. Walking the graph: `next_functions`",
        "includes_none": "5. Walking the graph: `next_functions`",
        "wrong_names": "5. Walking the graph: `next_functions`",
        "duplicates": "5. Walking the graph: `next_functions`",
        "dedupe_by_name": "5. Walking the graph: `next_functions`",
        "depth_first": "5. Walking the graph: `next_functions`",
        "wrong_order": "5. Walking the graph: `next_functions`",
    },
    points={"test_graph_ops": 2},
)
# fmt: on
