"""Lesson 3's data, its example networks and its figures.

Plain functions build the data and the dead-unit network (tested headless in
``tests/unit/gradlessons/test_lesson3.py``, which also checks the numbers the lesson states),
``..._figure`` functions draw numbers into a pyplot-free matplotlib ``Figure``, and ``plot_...``
functions show such a figure the way ``draw_graph`` does: as a plain PNG image
(``IPython.display.Image``), which a cell displays by ending with it: a static output, so it also
shows in the feedback page and with any ipywidgets version (Colab's 7.7). So the lesson needs no
``%matplotlib inline`` and leaves no pyplot figure open.

Every function draws its random numbers inside ``torch.random.fork_rng`` with its own seed: a call
gives the same result every time, whatever ran before, and leaves the notebook's random state as it
was. The loops and measurements a lesson section is about stay in the lesson's cells:
``plot_forgetting_to_clear`` only draws the two lists of slopes that the lesson's loops collected, and
``plot_layer_grad_norms`` only draws the per-layer gradient norms that the lesson's cell measured.

Titles, axis labels, legends and alt texts are translated when a figure function is called (a
Portuguese lesson chooses its language after importing this module); numbers keep Python's formats.
"""

from __future__ import annotations

import io
import warnings

import torch
from IPython.display import Image
from matplotlib.figure import Figure
from torch import nn

from gradlessons.figures import DPI
from gradlessons.i18n import _

#: The line the toy data is drawn around: y = TRUE_SLOPE * x + TRUE_BIAS.
TRUE_SLOPE, TRUE_BIAS = 3.0, 1.0
# Fixed margins for the 5 x 3 inch figures, room for the axis labels: a figure drawn once, where
# a constrained layout would draw it again to measure it (the graded notebooks draw them too).
MARGINS = {"left": 0.14, "right": 0.97, "bottom": 0.16, "top": 0.95}


def line_data(n: int = 40, noise: float = 0.3, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Toy data for fitting a line: ``n`` points with x evenly spaced in [-2, 2] and y = 3x + 1 plus
    a little Gaussian noise. Returns ``(x, y)``, both of shape ``(n, 1)``."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        x = torch.linspace(-2, 2, n).unsqueeze(1)
        y = TRUE_SLOPE * x + TRUE_BIAS + noise * torch.randn(n, 1)
    return x, y


def plot_forgetting_to_clear(never_cleared: list[float], cleared: list[float]) -> Image:
    """Show :func:`forgetting_to_clear_figure` (end a cell with the result to display it)."""
    return _shown(forgetting_to_clear_figure(never_cleared, cleared), forgetting_to_clear_alt(never_cleared, cleared))


def forgetting_to_clear_alt(never_cleared: list[float], cleared: list[float]) -> str:
    """What :func:`forgetting_to_clear_figure` draws, in words: where each line goes, not only where it ends
    (the red line's swings are the figure's point)."""
    return _(
        "A line chart of the slope w after each of {steps} training steps, with a dashed line at the "
        "true slope {slope}. With zero_grad() every step, w ends at {cleared}. Never cleared "
        "(red), w goes up and down between {low} and {high}; after step "
        "{last_step} it is {last}."
    ).format(
        steps=len(cleared),
        slope=f"{TRUE_SLOPE:g}",
        cleared=f"{cleared[-1]:.2f}",
        low=f"{min(never_cleared):.2f}",
        high=f"{max(never_cleared):.2f}",
        last_step=len(never_cleared),
        last=f"{never_cleared[-1]:.2f}",
    )


def forgetting_to_clear_figure(never_cleared: list[float], cleared: list[float]) -> Figure:
    """Draw two lists of slopes, one per training step, that the lesson's own loops collected (never
    cleared and cleared every step), against the true slope.  It only draws: the loops are in the lesson."""
    fig = Figure(figsize=(5, 3))
    fig.subplots_adjust(**MARGINS)
    ax = fig.subplots()
    steps = range(1, len(cleared) + 1)
    ax.plot(steps, cleared, label=_("zero_grad() every step"))
    ax.plot(range(1, len(never_cleared) + 1), never_cleared, color="tab:red", label=_("never cleared"))
    ax.axhline(TRUE_SLOPE, color="gray", linestyle="--", label=_("true slope {slope}").format(slope=f"{TRUE_SLOPE:g}"))
    # i18n: x axis label: the training step number
    ax.set_xlabel(_("step"))
    ax.set_ylabel(_("learned slope w"))
    ax.set_ylim(0, 7.3)  # room above the swings for the legend
    ax.legend(loc="upper center", ncol=3, fontsize=7)
    return fig


def dead_relu_net(
    dead_unit: int = 3, bias: float = -10.0, n: int = 200, seed: int = 0
) -> tuple[nn.Sequential, torch.Tensor, torch.Tensor]:
    """A 2-5-1 ReLU network whose hidden unit ``dead_unit`` gets the bias ``bias``, and ``n`` examples
    of a smooth target. With bias −10 that unit's input is negative on every example (the inputs are
    standard normal and the weights small), so ReLU outputs 0 there and passes no gradient back.
    Returns ``(net, x, y)``; nothing has been backpropagated yet."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        net = nn.Sequential(nn.Linear(2, 5), nn.ReLU(), nn.Linear(5, 1))
        x = torch.randn(n, 2)
    with torch.no_grad():  # setting a weight by hand is not part of the model's computation
        net[0].bias[dead_unit] = bias
    y = torch.sin(2 * x[:, :1] - x[:, 1:])
    return net, x, y


def deep_tanh_data(n: int = 64, width: int = 32, seed: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs and targets for the lesson's deep tanh networks (``width`` numbers in and out): standard
    normal inputs, targets in (−0.5, 0.5)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return torch.randn(n, width), 0.5 * torch.tanh(torch.randn(n, width))


def plot_layer_grad_norms(norms: dict[float, list[float]]) -> Image:
    """Show :func:`layer_grad_norms_figure` (end a cell with the result to display it)."""
    return _shown(layer_grad_norms_figure(norms), layer_grad_norms_alt(norms))


def layer_grad_norms_alt(norms: dict[float, list[float]]) -> str:
    """What :func:`layer_grad_norms_figure` draws, in words (each line's two ends, as a screen reader says
    numbers well: 3,500 rather than 3.5e+03)."""

    def said(value: float) -> str:
        return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2g}"

    depth = max(len(values) for values in norms.values())
    lines = " ".join(
        _("Weights std {std}: {first} at layer 1, {last} at layer {depth}.").format(
            std=f"{std:g}", first=said(values[0]), last=said(values[-1]), depth=len(values)
        )
        for std, values in norms.items()
    )
    return _(
        "A line chart, on a log scale, of the gradient norm of each layer's weight, from layer 1 (nearest the "
        "input) to layer {depth}, one line per weight std. {lines}"
    ).format(depth=depth, lines=lines)


def precompute() -> None:
    """Warm matplotlib up ahead of time (fonts, the log-scale axis): a grading server calls this once,
    before it starts a kernel per submission, so each kernel draws the lesson's figures faster.  It
    draws placeholder numbers: the measurements are the lesson's own cells."""
    _shown(layer_grad_norms_figure({1.0: [1.0, 10.0], 0.3: [0.5, 0.4]}), "warm-up")
    _shown(forgetting_to_clear_figure([0.5, 5.5], [1.0, 3.0]), "warm-up")


def layer_grad_norms_figure(norms: dict[float, list[float]]) -> Figure:
    """Draw the weight-gradient norm of every layer, one line per weight std (``{std: [layer 1, layer 2,
    ...]}``, as the lesson's cell measured them), on a log scale (the norms span several powers of
    ten).  It only draws: the networks, the backward pass and the norms are in the lesson."""
    fig = Figure(figsize=(5, 3))
    fig.subplots_adjust(**MARGINS)
    ax = fig.subplots()
    depth = max(len(values) for values in norms.values())
    for std, values in norms.items():
        ax.plot(
            range(1, len(values) + 1),
            values,
            marker="o",
            markersize=3,
            label=_("weights std {std}").format(std=f"{std:g}"),
        )
    ax.set_yscale("log")
    ax.set_xlabel(_("layer (1 = first, nearest the input)"))
    ax.set_ylabel(_("gradient norm"))
    ax.set_xticks([1, *range(5, depth + 1, 5)])
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def _shown(fig: Figure, alt: str) -> Image:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        # Some matplotlib/pyparsing pairs (Colab's) warn about each other while finding a font:
        # their noise, not the lesson's, kept off the student's screen.
        warnings.simplefilter("ignore")
        fig.savefig(buffer, format="png", dpi=DPI)
    fig.clear()  # owned by no pyplot manager: clearing releases its artists right away
    # The output's metadata carries the alt text (nbconvert's <img alt>); not Image(alt=...), which
    # Colab's older IPython does not take.
    return Image(data=buffer.getvalue(), format="png", metadata={"alt": alt})
