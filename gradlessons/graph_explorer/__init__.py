"""Interactive explorer for lesson 1: requires_grad and the computational graph.

``GraphExplorerState`` is the model (real tensors, the graph as plain data, and a short guide);
``GraphExplorer`` is a thin ipywidgets view over it. ``draw_graph(tensor, names)`` shows the graph
behind any tensor as a picture, drawn the way the explorer draws it (use it instead of printing
nested ``next_functions`` tuples). The view and the drawing are imported lazily, so the state works
without ipywidgets or matplotlib.
"""

from gradlessons.graph_explorer.state import (
    GUIDE_STEPS,
    OPERATIONS,
    Graph,
    GraphExplorerState,
    Guide,
    GuideStep,
    Node,
    Step,
    read_graph,
)

__all__ = [
    "GUIDE_STEPS",
    "OPERATIONS",
    "Graph",
    "GraphExplorer",
    "GraphExplorerState",
    "Guide",
    "GuideStep",
    "Node",
    "Step",
    "draw_graph",
    "read_graph",
]


def __getattr__(name):
    if name == "GraphExplorer":
        from gradlessons.graph_explorer.view import GraphExplorer

        return GraphExplorer
    if name == "draw_graph":
        from gradlessons.graph_explorer.drawing import draw_graph

        return draw_graph
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
