"""Interactive explorer for lesson 4: ``torch.no_grad()`` for inference.

``InferenceExplorerState`` is the model (a real MLP, no widget code); ``InferenceExplorer`` is a
thin ipywidgets view over it, imported lazily so the state works without ipywidgets.
"""

from gradlessons.inference_explorer.state import Guide, GuideStep, InferenceExplorerState, Run

__all__ = ["Guide", "GuideStep", "InferenceExplorer", "InferenceExplorerState", "Run"]


def __getattr__(name):
    if name == "InferenceExplorer":
        from gradlessons.inference_explorer.view import InferenceExplorer

        return InferenceExplorer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
