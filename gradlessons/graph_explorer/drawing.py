"""Drawing a computational graph: the graph explorer's picture, and ``draw_graph`` for any tensor.

:func:`graph_figure` draws a :class:`~gradlessons.graph_explorer.state.Graph` (plain nodes and
edges) top-down with matplotlib's object API (no pyplot). :func:`draw_graph` reads the graph behind
any tensor and shows it as a PNG in an ``ipywidgets.Output``, the way every explorer shows its
figures (:func:`gradlessons.figures.show_figure`), so a notebook can show a graph instead of
printing nested ``next_functions`` tuples::

    from gradlessons.graph_explorer import draw_graph

    w = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (w * 3).sum()
    draw_graph(loss, {"w": w, "loss": loss})

Every box says what it is: a grey box (an input without grad, ``None`` in ``next_functions``) is
named after the tensor it was, when ``read_graph`` can tell (see ``_grey_input`` there), else "an
input (no grad)". Each layer is drawn in argument order, first argument on the left
(``Node.order``), so the inputs keep their sides as the graph grows step by step.

Every word (title, legend, alt text, a grey box's label) is translated when the figure is drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import reduce

import ipywidgets as widgets
import torch
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from gradlessons.figures import show_figure
from gradlessons.graph_explorer.state import Graph, Node, read_graph
from gradlessons.i18n import N_, _

FIGSIZE = (7.5, 4.6)  # the explorer's figure: one size, so the widget does not jump around

STYLES = {
    "op": {"boxstyle": "round,pad=0.45", "facecolor": "#cfe2f3", "edgecolor": "#1f4e79", "linestyle": "-"},
    "leaf": {"boxstyle": "ellipse,pad=0.35", "facecolor": "#d9ead3", "edgecolor": "#38761d", "linestyle": "-"},
    "constant": {"boxstyle": "square,pad=0.4", "facecolor": "#eeeeee", "edgecolor": "#888888", "linestyle": "--"},
}
LEGEND = {
    "op": N_("backward node (a grad_fn)"),
    "leaf": N_("AccumulateGrad (leaf, requires grad)"),
    "constant": N_("input without grad (None in next_functions)"),
}


def draw_graph(tensor: torch.Tensor, names: Mapping[str, object] | None = None) -> widgets.Output:
    """Show the graph behind ``tensor`` as a PNG in a new ``Output`` widget (display it, or end a cell with it).

    Args:
        tensor: any tensor; one that has no ``grad_fn`` is drawn as a single box.
        names: optional name -> tensor, to label the nodes: a leaf's ``AccumulateGrad`` node and
            the ``grad_fn`` of a named tensor get the name (non-tensors are ignored).
    """
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(_("draw_graph needs a tensor, not {type}").format(type=type(tensor).__name__))
    known = {k: v for k, v in (names or {}).items() if isinstance(v, torch.Tensor)}
    target = next((name for name, t in known.items() if t is tensor), None)
    graph = read_graph(tensor, target, known)
    output = widgets.Output()
    figure = graph_figure(graph, figsize=_fitting_size(graph))
    show_figure(output, figure, _("graph behind {name}").format(name=graph.target), graph_alt(graph))
    return output


def graph_alt(graph: Graph) -> str:
    """The drawing in words, for whoever cannot see it: what an arrow means, then each box from the top
    with the boxes it points to, each named as its box is labelled."""
    nodes = {node.id: node for node in graph.nodes}
    below: dict[int, list[int]] = {}
    for parent, child in graph.edges:
        below.setdefault(parent, []).append(child)

    def name(node: Node) -> str:
        return " ".join(_label(node).split("\n"))  # the box's own words, on one line

    sentences = [
        _(
            "The computation graph behind {name}. Each arrow goes from a backward node to the nodes in its "
            "next_functions, the way backward() sends gradients."
        ).format(name=graph.target)
    ]
    for node in sorted(graph.nodes, key=lambda n: (n.depth, n.order)):
        if node.id in below:
            # i18n: joins the boxes one box points to: "MulBackward0 points to a and to b (and to c)"
            targets = reduce(
                lambda a, b: _("{earlier} and to {later}").format(earlier=a, later=b),
                (name(nodes[i]) for i in below[node.id]),
            )
            sentences.append(_("{box} points to {targets}.").format(box=name(node), targets=targets))
    if len(graph.nodes) == 1:
        sentences.append(_("It is a single box: {box}.").format(box=name(graph.nodes[0])))
    if graph.note:
        sentences.append(graph.note)
    return " ".join(sentences)


def graph_figure(graph: Graph, figsize: tuple[float, float] = FIGSIZE) -> Figure:
    """Draw the graph top-down: the target's grad_fn on top, arrows along next_functions."""
    fig = Figure(figsize=figsize, layout="constrained")
    ax = fig.subplots()
    where = _positions(graph)
    depth = max((n.depth for n in graph.nodes), default=0)
    constants = {n.id for n in graph.nodes if n.kind == "constant"}
    texts = {}
    for node in graph.nodes:
        style = STYLES[node.kind]
        x, y = where[node.id]
        texts[node.id] = ax.text(
            x,
            y,
            _label(node),
            ha="center",
            va="center",
            fontsize=9,
            family="monospace",
            zorder=3,
            bbox={
                "boxstyle": style["boxstyle"],
                "facecolor": style["facecolor"],
                "edgecolor": style["edgecolor"],
                "linestyle": style["linestyle"],
                "linewidth": 1.4,
            },
        )
    depths = {n.id: n.depth for n in graph.nodes}
    for parent, child in sorted(set(graph.edges)):
        dashed = child in constants
        # An arrow that skips layers is bent, so it does not run behind the boxes in between.
        skipped = depths[child] - depths[parent] - 1
        bend = f"arc3,rad={0.25 + 0.1 * (skipped - 1):.2f}" if skipped > 0 else "arc3,rad=0"
        ax.annotate(
            "",
            xy=where[child],
            xytext=where[parent],
            zorder=2,
            arrowprops={
                "arrowstyle": "-|>",
                "color": "#888888" if dashed else "#333333",
                "linestyle": "--" if dashed else "-",
                "patchA": texts[parent].get_bbox_patch(),
                "patchB": texts[child].get_bbox_patch(),
                "shrinkA": 2,
                "shrinkB": 2,
                "connectionstyle": bend,
            },
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(-depth - 0.6, 0.6)
    ax.axis("off")
    ax.set_title(
        _("graph behind {name} (arrows follow next_functions, the backward direction)").format(name=graph.target)
        + f"\n{graph.note}",
        fontsize=9,
    )
    kinds = [k for k in STYLES if any(n.kind == k for n in graph.nodes)]
    handles = [
        Patch(
            facecolor=STYLES[k]["facecolor"],
            edgecolor=STYLES[k]["edgecolor"],
            linestyle=STYLES[k]["linestyle"],
            label=_(LEGEND[k]),
        )
        for k in kinds
    ]
    # The three kinds side by side need 7.6 inches; a narrower figure (the explorer's, beside its guide)
    # puts them on two rows, or its frame would cut the legend's ends off.
    ncol = len(handles) if fig.get_figwidth() >= 7.6 else min(2, len(handles))
    fig.legend(handles=handles, loc="outside lower center", ncol=ncol or 1, fontsize=8, frameon=False)
    return fig


def _fitting_size(graph: Graph) -> tuple[float, float]:
    """A figure about as tall as the graph is deep, for a drawing in a lesson's text."""
    depth = max((n.depth for n in graph.nodes), default=0)
    return (7.0, min(6.0, 1.6 + 0.8 * (depth + 1)))


def _positions(graph: Graph) -> dict[int, tuple[float, float]]:
    layers: dict[int, list[int]] = {}
    for node in graph.nodes:
        layers.setdefault(node.depth, []).append(node.id)
    where = {}
    order = {n.id: n.order for n in graph.nodes}
    for depth, ids in layers.items():
        for i, node_id in enumerate(sorted(ids, key=order.get)):  # first argument on the left
            where[node_id] = ((i + 1) / (len(ids) + 1), -float(depth))
    return where


def _label(node) -> str:
    if node.kind == "constant":  # every grey box says which input it is, or at least what it is
        if node.tensor:
            return _("{name}\n(no grad)").format(name=node.tensor)
        return _("an input\n(no grad)")
    if node.tensor:
        return f"{node.label}\n({node.tensor})"
    return node.label
