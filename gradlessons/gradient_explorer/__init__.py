"""Interactive explorer for lesson 3: reading and zeroing ``.grad``.

``GradExplorerState`` is the model: a real one-parameter PyTorch setup with no
widget code, and the ``Guide`` that leads a student through the lesson's main
experiment step by step. ``GradExplorer`` is a thin ipywidgets view over it.

The view is imported lazily (PEP 562 ``__getattr__``) so that the state can be
used, and tested, on a machine without ipywidgets or matplotlib.
"""

from gradlessons.gradient_explorer.state import ACTIONS, GradExplorerState, Guide, GuideStep, Record

__all__ = ["ACTIONS", "GradExplorer", "GradExplorerState", "Guide", "GuideStep", "Record"]


def __getattr__(name):
    if name == "GradExplorer":
        from gradlessons.gradient_explorer.view import GradExplorer

        return GradExplorer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
