"""Showing a matplotlib figure in an ``ipywidgets.Output``, the same way in every explorer.

The figure is made without pyplot and rendered to PNG with Agg, so it neither depends on the
notebook's matplotlib backend nor registers a pyplot figure that could leak or be shown twice.
The PNG replaces the Output's ``outputs`` (what ``Output.append_display_data`` does), which every
frontend renders (JupyterLab with ipywidgets 8, Colab with 7.7) and which, unlike
``with out: display(fig)``, also works without a live kernel, so tests can see a new image.

Axes are given room beyond their extreme points (:func:`padded_range`): a marker drawn exactly at an
axis's limit is cut in half by the frame (lesson 4's runs that saved 0 MB sat on the axis).
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterable

import ipywidgets as widgets
from matplotlib.figure import Figure

DPI = 100
#: The share of an axis's range left empty beyond each extreme point: room for a whole marker.
MARGIN = 0.08


def padded_range(
    values: Iterable[float], include: Iterable[float] = (), below: float = MARGIN, above: float = MARGIN
) -> tuple[float, float]:
    """Axis limits that show every value (and every point of ``include``, such as 0) whole: the
    range from the smallest to the largest, widened by ``below`` and ``above`` times its span (or
    times the value's size, or 1, when every value is the same)."""
    points = [float(v) for v in (*values, *include)]
    if not points:
        return (0.0, 1.0)
    low, high = min(points), max(points)
    span = (high - low) or abs(high) or 1.0
    return (low - below * span, high + above * span)


def show_figure(output: widgets.Output, fig: Figure, label: str = "figure", alt: str | None = None) -> None:
    """Replace what ``output`` shows by ``fig`` as a PNG, then release the figure.  ``alt`` says what
    the figure shows, for whoever cannot see it (screen readers, the feedback page's ``<img alt>``);
    without it, ``label`` stands in."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    # The figure is owned by no pyplot manager: clearing it releases its artists right away.
    fig.clear()
    png = base64.b64encode(buffer.getvalue()).decode("ascii")
    output.outputs = (
        {
            "output_type": "display_data",
            "data": {"image/png": png, "text/plain": f"<{label}>"},
            "metadata": {"image/png": {"alt": alt or label}},
        },
    )
