"""Interactive explorer for lesson 1: requires_grad and the computational graph.

``GraphExplorerState`` is the model (real tensors, the graph as plain data); ``GraphExplorer``
is a thin ipywidgets view over it, imported lazily so the state works without ipywidgets.
"""

from gradlessons.graph_explorer.state import OPERATIONS, Graph, GraphExplorerState, Node, Step

__all__ = ["OPERATIONS", "Graph", "GraphExplorer", "GraphExplorerState", "Node", "Step"]


def __getattr__(name):
    if name == "GraphExplorer":
        from gradlessons.graph_explorer.view import GraphExplorer

        return GraphExplorer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
