"""Lesson 3's data, its example networks and its figures.

Plain functions build the data and networks and run the optional sections' experiments (tested
headless in ``tests/unit/gradlessons/test_lesson3.py``, which checks the numbers the lesson states),
``..._figure`` functions draw numbers into a pyplot-free matplotlib ``Figure``, and ``plot_...``
functions show such a figure the way ``draw_graph`` does: as a plain PNG image
(``IPython.display.Image``), which a cell displays by ending with it: a static output, so it also
shows in the feedback page and with any ipywidgets version (Colab's 7.7). So the lesson needs no
``%matplotlib inline`` and leaves no pyplot figure open.

Every function draws its random numbers inside ``torch.random.fork_rng`` with its own seed: a call
gives the same result every time, whatever ran before, and leaves the notebook's random state as it
was. The loops a lesson section is about stay in the lesson's cells: ``plot_forgetting_to_clear`` only
draws the two lists of slopes that the lesson's loops collected.
"""

from __future__ import annotations

import functools
import io
import warnings

import torch
from IPython.display import Image
from matplotlib.figure import Figure
from torch import nn

from gradlessons.figures import DPI

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
    return _shown(forgetting_to_clear_figure(never_cleared, cleared), "the slope, cleared and never cleared")


def forgetting_to_clear_figure(never_cleared: list[float], cleared: list[float]) -> Figure:
    """Draw two lists of slopes, one per training step, that the lesson's own loops collected (never
    cleared and cleared every step), against the true slope.  It only draws: the loops are in the lesson."""
    fig = Figure(figsize=(5, 3))
    fig.subplots_adjust(**MARGINS)
    ax = fig.subplots()
    steps = range(1, len(cleared) + 1)
    ax.plot(steps, cleared, label="zero_grad() every step")
    ax.plot(range(1, len(never_cleared) + 1), never_cleared, color="tab:red", label="never cleared")
    ax.axhline(TRUE_SLOPE, color="gray", linestyle="--", label=f"true slope {TRUE_SLOPE:g}")
    ax.set_xlabel("step")
    ax.set_ylabel("learned slope w")
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


def deep_tanh_net(weight_std: float, depth: int = 20, width: int = 32, seed: int = 0) -> nn.Sequential:
    """``depth`` layers of ``Linear(width, width)`` + ``Tanh``, weights drawn with ``nn.init.normal_``
    at standard deviation ``weight_std``, biases zero."""
    layers: list[nn.Module] = []
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        for _ in range(depth):
            linear = nn.Linear(width, width)
            nn.init.normal_(linear.weight, std=weight_std)
            nn.init.zeros_(linear.bias)
            layers += [linear, nn.Tanh()]
    return nn.Sequential(*layers)


def deep_tanh_data(n: int = 64, width: int = 32, seed: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs and targets for :func:`deep_tanh_net`: standard normal inputs, targets in (−0.5, 0.5)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return torch.randn(n, width), 0.5 * torch.tanh(torch.randn(n, width))


def layer_grad_norms(weight_std: float, depth: int = 20) -> list[float]:
    """One MSE ``backward()`` through :func:`deep_tanh_net`; the norm of each layer's weight
    gradient, from layer 1 (the first, nearest the input) to layer ``depth`` (the last)."""
    net = deep_tanh_net(weight_std, depth=depth)
    x, y = deep_tanh_data()
    nn.functional.mse_loss(net(x), y).backward()
    return [m.weight.grad.norm().item() for m in net if isinstance(m, nn.Linear)]


def plot_layer_grad_norms(weight_stds: tuple[float, ...] = (1.0, 0.3), depth: int = 20) -> Image:
    """Show :func:`layer_grad_norms_figure` (end a cell with the result to display it)."""
    return Image(data=_layer_grad_norms_png(tuple(weight_stds), depth), format="png")


@functools.lru_cache(maxsize=8)
def _layer_grad_norms_png(weight_stds: tuple[float, ...], depth: int) -> bytes:
    # Seeded inside, so the same arguments always draw the same figure: drawn once per process.
    return _shown(layer_grad_norms_figure(weight_stds, depth), "gradient norm per layer").data


def precompute() -> None:
    """Draw the lesson's fixed figures ahead of time.  A grading server calls this once, before it
    starts a kernel per submission: each kernel then shows them without drawing them again."""
    _layer_grad_norms_png((1.0, 0.3), 20)


def layer_grad_norms_figure(weight_stds: tuple[float, ...] = (1.0, 0.3), depth: int = 20) -> Figure:
    """The weight-gradient norm of every layer of the deep tanh network, one line per init std, on a
    log scale (the norms span several powers of ten)."""
    fig = Figure(figsize=(5, 3))
    fig.subplots_adjust(**MARGINS)
    ax = fig.subplots()
    layers = range(1, depth + 1)
    for std in weight_stds:
        ax.plot(layers, layer_grad_norms(std, depth=depth), marker="o", markersize=3, label=f"weights std {std:g}")
    ax.set_yscale("log")
    ax.set_xlabel("layer (1 = first, nearest the input)")
    ax.set_ylabel("gradient norm")
    ax.set_xticks([1, *range(5, depth + 1, 5)])
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def _shown(fig: Figure, label: str) -> Image:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        # Some matplotlib/pyparsing pairs (Colab's) warn about each other while finding a font:
        # their noise, not the lesson's, kept off the student's screen.
        warnings.simplefilter("ignore")
        fig.savefig(buffer, format="png", dpi=DPI)
    fig.clear()  # owned by no pyplot manager: clearing releases its artists right away
    return Image(data=buffer.getvalue(), format="png")
