"""Showing a matplotlib figure in an ``ipywidgets.Output``, the same way in every explorer.

The figure is made without pyplot and rendered to PNG with Agg, so it neither depends on the
notebook's matplotlib backend nor registers a pyplot figure that could leak or be shown twice.
The PNG replaces the Output's ``outputs`` (what ``Output.append_display_data`` does), which every
frontend renders (JupyterLab with ipywidgets 8, Colab with 7.7) and which, unlike
``with out: display(fig)``, also works without a live kernel, so tests can see a new image.
"""

from __future__ import annotations

import base64
import io

import ipywidgets as widgets
from matplotlib.figure import Figure

DPI = 100


def show_figure(output: widgets.Output, fig: Figure, label: str = "figure") -> None:
    """Replace what ``output`` shows by ``fig`` as a PNG, then release the figure."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    # The figure is owned by no pyplot manager: clearing it releases its artists right away.
    fig.clear()
    png = base64.b64encode(buffer.getvalue()).decode("ascii")
    output.outputs = (
        {"output_type": "display_data", "data": {"image/png": png, "text/plain": f"<{label}>"}, "metadata": {}},
    )
