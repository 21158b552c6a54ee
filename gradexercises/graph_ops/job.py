"""graph_ops(t) -> list[str]: the class names of the autograd nodes reachable from t.grad_fn,
each node once, breadth-first, following next_functions in order and skipping None entries."""

from __future__ import annotations

from gradebox.exercises import type_name
from gradebox.exercises._lesson1 import GRAPHS, GraphScenario, build_graph

NAME = "graph_ops"
MAX_ITEMS = 200  # a runaway walk is cut here; the record stays small
NODE_ATTRIBUTES = ("next_functions", "name", "variable", "metadata")


def suite(start: str = "all", seed: int = 0) -> list[GraphScenario]:
    """Every kind of graph once; ``seed`` changes shapes, values and the exact expressions.
    ``start`` is accepted for the common check interface and ignored."""
    return [GraphScenario(graph, seed=100 * seed + i) for i, graph in enumerate(GRAPHS)]


def _describe(item) -> str | dict:
    if isinstance(item, str):
        return str(item)[:200]
    return {"type": type_name(item), "repr": repr(item)[:120] if item is None or _is_node(item) else ""}


def _is_node(item) -> bool:
    return hasattr(item, "next_functions")


def run(fn, scenario: GraphScenario) -> dict:
    t, _keep = build_graph(scenario)
    try:
        result = fn(t)
    except AttributeError as exc:
        # Only a None node being used as a node is this exercise's mistake; anything else is an error.
        if not any(f"'NoneType' object has no attribute '{attr}'" in str(exc) for attr in NODE_ATTRIBUTES):
            raise
        return {"raised": {"type": type_name(exc), "message": str(exc)[:300]}, "type": None, "items": []}
    items = list(result)[:MAX_ITEMS] if isinstance(result, (list, tuple)) else []
    return {"raised": None, "type": type_name(result), "items": [_describe(i) for i in items]}
