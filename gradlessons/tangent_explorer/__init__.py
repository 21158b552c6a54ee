"""Interactive explorer for lesson 2: the tangent line whose slope comes from ``backward()``.

``TangentExplorerState`` is the model (plain Python and PyTorch, with the guided tour ``Guide``);
``TangentExplorer`` is a thin ipywidgets view over it, imported lazily so the state works without
ipywidgets or matplotlib.
"""

from gradlessons.tangent_explorer.state import FUNCTIONS, GUIDE_STEPS, Guide, GuideStep, TangentExplorerState

__all__ = ["FUNCTIONS", "GUIDE_STEPS", "Guide", "GuideStep", "TangentExplorer", "TangentExplorerState"]


def __getattr__(name):
    if name == "TangentExplorer":
        from gradlessons.tangent_explorer.view import TangentExplorer

        return TangentExplorer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
