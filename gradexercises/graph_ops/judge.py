"""Judging graph_ops: the returned names against the judge's own breadth-first walk of the same graph."""

from __future__ import annotations

import re
from collections import Counter

from autograder.i18n import pgettext
from autograder.judge._lesson1 import bfs_names, bfs_names_dedupe_by_name, bfs_names_with_repeats, dfs_orders
from autograder.judge.texts import Texts
from autograder.judge.validate import Fields, ListOf, OneOf, Optional, Text
from autograder.verdict import Verdict, returned_kind
from gradebox.exercises._lesson1 import GraphScenario, build_graph

from .job import MAX_ITEMS, NAME

NOT_FINITE = "wrong_nodes"


def schema(scenario: GraphScenario):
    item = OneOf((Text(200), Fields({"type": Text(200), "repr": Text(200)})))
    return Fields(
        {
            "raised": Optional(Fields({"type": Text(100), "message": Text(400)})),
            "type": Optional(Text(200)),
            "items": ListOf(item, max_length=MAX_ITEMS),
        }
    )


_REPR = re.compile(r"^<(?:[\w.]+\.)?(\w+) object at 0x[0-9a-fA-F]+>$")


def _plain_name(item) -> str | None:
    """The class name hidden in a repr, a C++ name or a described object, if there is one."""
    if isinstance(item, dict):
        match = _REPR.match(item.get("repr", ""))
        return match.group(1) if match else None
    match = _REPR.match(item)
    if match:
        return match.group(1)
    if "::" in item:
        return item.rsplit("::", 1)[-1]
    return None


def explain_error(error: dict, scenario=None) -> Verdict | None:
    """Any exception on a tensor whose grad_fn is None (a leaf, a detached tensor) is a crash on it:
    the answer there is []."""
    if scenario is not None and build_graph(scenario)[0].grad_fn is None:
        from autograder.judge import _place  # "line 4" said in the learner's language, as every other verdict says it

        where = error.get("where")
        fields = {
            "message": MESSAGES["crashes_on_leaf"],
            "kind": error["type"],
            "where": _place(where) if where else where,
        }
        if fields["where"]:
            text = pgettext("graph_ops:crashes_on_leaf", "{message} It raised {kind} (at {where}).")
        else:
            text = pgettext("graph_ops:crashes_on_leaf", "{message} It raised {kind}.")
        return Verdict(NAME, "crashes_on_leaf", text.format(**fields))
    return None


def judge(scenarios: list[GraphScenario], observations: list[dict]) -> Verdict:
    for scenario, obs in zip(scenarios, observations):
        t, _keep = build_graph(scenario)
        expected = bfs_names(t.grad_fn)
        problem = _classify(t, expected, obs)
        if problem:
            code, message = problem
            return Verdict(NAME, code, message)
    return Verdict(NAME, "ok", MESSAGES["ok"])


def _classify(t, expected: list[str], obs: dict) -> tuple[str, str] | None:
    raised = obs["raised"]
    if raised:
        if t.grad_fn is None:
            return "crashes_on_leaf", MESSAGES["crashes_on_leaf"]
        return "includes_none", MESSAGES["crashes_on_none"]
    if obs["type"] != "list":
        return "not_a_list", MESSAGES["not_a_list"].format(kind=returned_kind(obs["type"]))
    items = obs["items"]
    if items == expected:
        return None
    if any(isinstance(i, dict) and i["type"] == "NoneType" for i in items) or any(
        i in ("None", "NoneType") for i in items if isinstance(i, str)
    ):
        return "includes_none", MESSAGES["includes_none"]
    if any(not isinstance(i, str) for i in items):
        return "wrong_names", MESSAGES["wrong_names"]
    if any(_plain_name(i) for i in items):
        return "wrong_names", MESSAGES["wrong_names_repr"]
    extra, missing = Counter(items) - Counter(expected), Counter(expected) - Counter(items)
    if items == bfs_names_with_repeats(t.grad_fn, limit=MAX_ITEMS) or (
        expected and extra and not missing and all(name in expected for name in extra)
    ):
        return "duplicates", MESSAGES["duplicates"]
    if items == bfs_names_dedupe_by_name(t.grad_fn):
        return "dedupe_by_name", MESSAGES["dedupe_by_name"]
    if Counter(items) == Counter(expected):
        if items in dfs_orders(t.grad_fn):
            return "depth_first", MESSAGES["depth_first"]
        return "wrong_order", MESSAGES["wrong_order"]
    if items == [n for n in expected if n != "AccumulateGrad"] or (
        "AccumulateGrad" in expected and "AccumulateGrad" not in items
    ):
        return "missing_leaves", MESSAGES["missing_leaves"]
    if expected and items == expected[1:]:
        return "wrong_nodes", MESSAGES["skips_root"]
    if t.grad_fn is not None:
        return "wrong_nodes", MESSAGES["wrong_nodes"]
    text = pgettext("graph_ops:wrong_nodes", "{message} (here t.grad_fn is None, so the answer is [])")
    return "wrong_nodes", text.format(message=MESSAGES["wrong_nodes"])


MESSAGES = Texts(
    {
        "ok": lambda: pgettext(
            "graph_ops:ok", "Correct: every node of the graph, once each, in breadth-first order, named by its class."
        ),
        "crashes_on_leaf": (
            lambda: pgettext(
                "graph_ops:crashes_on_leaf",
                "Your function crashed on a tensor whose grad_fn is None (a leaf or a detached tensor): "
                "return [] in that case before walking the graph.",
            )
        ),
        "crashes_on_none": (
            lambda: pgettext(
                "graph_ops:crashes_on_none",
                "Your function crashed on a None entry of next_functions (an input that does not require "
                "grad): skip the pairs whose node is None.",
            )
        ),
        "includes_none": (
            lambda: pgettext(
                "graph_ops:includes_none",
                "Your list contains None for inputs that do not require grad: skip the pairs of "
                "next_functions whose node is None.",
            )
        ),
        "not_a_list": lambda: pgettext(
            "graph_ops:not_a_list", "Your function returned {kind}: return a list of strings."
        ),
        "wrong_names": (
            lambda: pgettext(
                "graph_ops:wrong_names",
                "Your list holds node objects rather than their names: append type(node).__name__ for each node.",
            )
        ),
        "wrong_names_repr": (
            lambda: pgettext(
                "graph_ops:wrong_names_repr",
                "The right nodes, but written as reprs or C++ names (like '<MulBackward0 object at ...>' "
                "or 'torch::autograd::AccumulateGrad'): use type(node).__name__.",
            )
        ),
        "duplicates": (
            lambda: pgettext(
                "graph_ops:duplicates",
                "A node reached by two paths appears more than once: remember the nodes you have already "
                "queued (a set of node objects) and list each one once.",
            )
        ),
        "dedupe_by_name": (
            lambda: pgettext(
                "graph_ops:dedupe_by_name",
                "Different nodes with the same class name (for example two AccumulateGrad leaves) were "
                "listed once: remember the node objects you have seen, not their names.",
            )
        ),
        "depth_first": (
            lambda: pgettext(
                "graph_ops:depth_first",
                "The right nodes in depth-first order: use a queue (collections.deque, popleft) so that "
                "all the children of a node come before their own children.",
            )
        ),
        "wrong_order": (
            lambda: pgettext(
                "graph_ops:wrong_order",
                "The right nodes in the wrong order: start from t.grad_fn and go breadth-first, taking "
                "each node's next_functions in their order.",
            )
        ),
        "missing_leaves": (
            lambda: pgettext(
                "graph_ops:missing_leaves",
                "The AccumulateGrad nodes (the leaves that require grad) are missing: they are nodes of "
                "the graph too, list them like the others.",
            )
        ),
        "skips_root": lambda: pgettext(
            "graph_ops:skips_root", "t.grad_fn itself is missing: the list starts with the class name of t.grad_fn."
        ),
        "wrong_nodes": lambda: pgettext(
            "graph_ops:wrong_nodes", "Your list does not name the nodes reachable from t.grad_fn."
        ),
    }
)
