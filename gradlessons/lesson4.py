"""The batch-size sweep of lesson 4's *Going deeper*: a figure of section 3's measurement repeated
at several batch sizes.

The lesson itself measures in its own cells (a ``saved_tensors_hooks`` pack hook for the memory,
``time.perf_counter()`` for the time); this module only repeats that measurement for the figure.
What a graph keeps is read from the graph itself: every node of ``t.grad_fn``'s graph exposes the
tensors it saved for ``backward()`` as attributes named ``_saved_...``. :func:`saved_tensors` collects
them; :func:`activation_mb` adds up the memory of those that are not parameters (the activations),
each piece of memory once. These numbers are exact and the same on every machine.

Time is not: a forward pass's wall time depends on the machine and on what else runs. So
:func:`tracking_cost` takes the best of a few runs. The tests in ``tests/unit/gradlessons/test_lesson4.py``
check the memory exactly and the times only loosely.

As in :mod:`gradlessons.lesson3`: plain functions return numbers, ``..._figure`` draws them into a
pyplot-free ``Figure``, and ``plot_...`` shows it (a PNG in an ``ipywidgets.Output``).  Its words are
translated when a figure function is called, never at import.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import ipywidgets as widgets
import torch
from matplotlib.figure import Figure
from torch import nn

from gradlessons.figures import show_figure
from gradlessons.i18n import _


def saved_tensors(t: torch.Tensor) -> list[tuple[str, str, torch.Tensor]]:
    """Every tensor the graph behind ``t`` keeps for ``backward()``, as ``(node class name, attribute,
    tensor)``, nodes visited depth first from ``t.grad_fn``, each node once. ``[]`` without a graph."""
    found, todo, seen = [], [t.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for name in dir(node):
            if name.startswith("_saved_"):
                value = getattr(node, name)
                if isinstance(value, torch.Tensor):
                    found.append((type(node).__name__, name, value))
        todo += [child for child, _ in node.next_functions]
    return found


def activation_mb(t: torch.Tensor, model: nn.Module) -> float:
    """Megabytes of activations the graph behind ``t`` keeps alive: its saved tensors, each piece of
    memory once, the model's parameters left out (they live on without the graph)."""
    weights = {p.data_ptr() for p in model.parameters()}
    kept = {s.data_ptr(): s.numel() * s.element_size() for _, _, s in saved_tensors(t) if s.data_ptr() not in weights}
    return sum(kept.values()) / 1e6


def best_seconds(f: Callable[[], object], repeats: int = 5) -> float:
    """The fastest of ``repeats`` calls of ``f()``, in seconds: the least disturbed by other work."""
    times = []
    for _repeat in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


@dataclass(frozen=True)
class TrackingCost:
    """What one forward pass of ``model(x)`` costs with tracking on and under ``torch.no_grad()``."""

    batch_size: int
    tracked_mb: float
    no_grad_mb: float
    tracked_ms: float
    no_grad_ms: float

    @property
    def time_ratio(self) -> float:
        """How many times longer the tracked pass took (it varies from run to run: ``no_grad()``
        saves memory for certain, time less surely)."""
        return self.tracked_ms / self.no_grad_ms


def tracking_cost(model: nn.Module, x: torch.Tensor, repeats: int = 5) -> TrackingCost:
    """Measure :class:`TrackingCost` (memory exactly, time as the best of ``repeats`` passes)."""
    with torch.enable_grad():  # "tracking on" must mean on, whatever the caller's state
        tracked_mb = activation_mb(model(x), model)
        tracked_s = best_seconds(lambda: model(x), repeats)
    with torch.no_grad():
        no_grad_mb = activation_mb(model(x), model)
        no_grad_s = best_seconds(lambda: model(x), repeats)
    return TrackingCost(len(x), tracked_mb, no_grad_mb, tracked_s * 1e3, no_grad_s * 1e3)


def batch_sweep(model: nn.Module, batch_sizes: Sequence[int], in_features: int, repeats: int = 3) -> list[TrackingCost]:
    """:func:`tracking_cost` at each batch size, on random inputs of ``in_features`` features."""
    with torch.random.fork_rng(devices=[]):  # leave the notebook's random numbers as they were
        torch.manual_seed(0)
        return [tracking_cost(model, torch.randn(n, in_features), repeats) for n in batch_sizes]


def batch_sweep_figure(costs: Sequence[TrackingCost]) -> Figure:
    """Memory kept (left) and forward time (right) against the batch size, tracked and under no_grad()."""
    fig = Figure(figsize=(9, 3.4), layout="constrained")
    ax_mem, ax_time = fig.subplots(1, 2)
    sizes = [c.batch_size for c in costs]
    for label, color, mb, ms in [
        (_("tracking on"), "tab:red", [c.tracked_mb for c in costs], [c.tracked_ms for c in costs]),
        ("no_grad()", "tab:blue", [c.no_grad_mb for c in costs], [c.no_grad_ms for c in costs]),
    ]:
        ax_mem.plot(sizes, mb, marker="o", color=color, label=label)
        ax_time.plot(sizes, ms, marker="o", color=color, label=label)
    ax_mem.set_title(_("activations kept for backward"))
    ax_mem.set_ylabel("MB")
    ax_time.set_title(_("time of one forward pass"))
    ax_time.set_ylabel("ms")
    for ax in (ax_mem, ax_time):
        ax.set_xlabel(_("batch size"))
        ax.grid(alpha=0.3)
    ax_mem.legend()
    return fig


def plot_batch_sweep(
    model: nn.Module, batch_sizes: Sequence[int] = (64, 256, 512, 1024, 2048), in_features: int = 256
) -> widgets.Output:
    """Measure :func:`batch_sweep` and show :func:`batch_sweep_figure` (end a cell with the result)."""
    output = widgets.Output()
    costs = batch_sweep(model, batch_sizes, in_features)
    show_figure(output, batch_sweep_figure(costs), _("memory and time"), batch_sweep_alt(costs))
    return output


def batch_sweep_alt(costs: Sequence[TrackingCost]) -> str:
    """What :func:`batch_sweep_figure` draws, in words (with the measured ends of each line)."""
    first, last = costs[0], costs[-1]
    sizes = ", ".join(str(c.batch_size) for c in costs)

    def memory(kept: list[float]) -> str:
        if not any(kept):
            return _("0 MB at every batch size")
        return _("from {first} MB to {last} MB").format(first=f"{kept[0]:.1f}", last=f"{kept[-1]:.1f}")

    # i18n: {tracked_memory} and {no_grad_memory} are phrases such as "from 1.0 MB to 8.0 MB"
    return _(
        "Two line charts against the batch size ({sizes}). Left, the activations kept for backward: "
        "with tracking on, {tracked_memory}; under no_grad(), "
        "{no_grad_memory}. Right, the time of one forward pass: "
        "with tracking on, from {tracked_first} ms to {tracked_last} ms; under no_grad(), "
        "from {no_grad_first} ms to {no_grad_last} ms."
    ).format(
        sizes=sizes,
        tracked_memory=memory([c.tracked_mb for c in costs]),
        no_grad_memory=memory([c.no_grad_mb for c in costs]),
        tracked_first=f"{first.tracked_ms:.2f}",
        tracked_last=f"{last.tracked_ms:.2f}",
        no_grad_first=f"{first.no_grad_ms:.2f}",
        no_grad_last=f"{last.no_grad_ms:.2f}",
    )
