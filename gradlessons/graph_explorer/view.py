"""A thin ipywidgets view over :class:`GraphExplorerState`.

Core ipywidgets only: one ``Checkbox`` per input for ``requires_grad``, ``Dropdown`` menus for
the operation and its operands, and ``Button`` widgets to apply, undo and reset. The graph is
drawn with matplotlib's object API (no pyplot) and shown as a PNG in an ``Output`` widget, as
every explorer does (:func:`gradlessons.figures.show_figure`).
"""

from __future__ import annotations

import html

import ipywidgets as widgets
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from gradlessons.figures import show_figure
from gradlessons.graph_explorer.state import INPUT_NAMES, OPERATIONS, Graph, GraphExplorerState

FIGSIZE = (7.5, 4.6)

STYLES = {
    "op": {"boxstyle": "round,pad=0.45", "facecolor": "#cfe2f3", "edgecolor": "#1f4e79", "linestyle": "-"},
    "leaf": {"boxstyle": "ellipse,pad=0.35", "facecolor": "#d9ead3", "edgecolor": "#38761d", "linestyle": "-"},
    "constant": {"boxstyle": "square,pad=0.4", "facecolor": "#eeeeee", "edgecolor": "#888888", "linestyle": "--"},
}
LEGEND = {
    "op": "grad_fn node",
    "leaf": "AccumulateGrad (leaf, requires grad)",
    "constant": "no grad (None in next_functions)",
}


class GraphExplorer:
    """Controls, a tensor table and the drawn graph over a :class:`GraphExplorerState`.

    Attributes:
        state: the model.
        widget: the top-level ``VBox`` a notebook displays.
        checkboxes: input name -> its ``requires_grad`` ``Checkbox``.
        op, x, y: the operation and operand ``Dropdown`` menus.
        buttons: ``"apply"``, ``"undo"`` and ``"reset"`` -> ``Button``.
        status: ``HTML`` line saying what the last click did.
        table: ``HTML`` panel listing every tensor with requires_grad, is_leaf and grad_fn.
        plot_output: ``Output`` holding the graph as a PNG.
    """

    def __init__(self, state: GraphExplorerState | None = None) -> None:
        self.state = state if state is not None else GraphExplorerState()
        self._syncing = False
        self.checkboxes = {
            name: widgets.Checkbox(
                value=self.state.requires_grad[name],
                description=f"{name}.requires_grad",
                indent=False,
                layout=widgets.Layout(width="auto", margin="0px 16px 0px 0px"),
            )
            for name in INPUT_NAMES
        }
        for name, box in self.checkboxes.items():
            box.observe(lambda change, name=name: self._on_flag(name, change["new"]), names="value")
        self.op = widgets.Dropdown(options=list(OPERATIONS), value="mul", description="operation")
        self.x = widgets.Dropdown(options=self.state.names, value="a", description="x")
        self.y = widgets.Dropdown(options=self.state.names, value="b", description="y")
        for menu in (self.op, self.x, self.y):
            menu.layout = widgets.Layout(width="180px")
        self.op.observe(lambda _change: self._update_code_hint(), names="value")
        self.x.observe(lambda _change: self._update_code_hint(), names="value")
        self.y.observe(lambda _change: self._update_code_hint(), names="value")
        self.buttons = {
            "apply": widgets.Button(description="apply", button_style="primary", tooltip="run the operation"),
            "undo": widgets.Button(description="undo", tooltip="forget the newest operation"),
            "reset": widgets.Button(description="reset", button_style="warning", tooltip="start over"),
        }
        self.buttons["apply"].on_click(lambda _b: self._on_apply())
        self.buttons["undo"].on_click(lambda _b: self._on_undo())
        self.buttons["reset"].on_click(lambda _b: self._on_reset())
        self.code_hint = widgets.HTML()
        self.status = widgets.HTML()
        # not width 100%: with the widget margins it overflowed the output area
        self.table = widgets.HTML(layout=widgets.Layout(width="auto", align_self="stretch"))
        self.plot_output = widgets.Output(layout=widgets.Layout(min_height="320px"))
        row = widgets.Layout(flex_flow="row wrap", align_items="center")
        self.widget = widgets.VBox(
            [
                widgets.HTML("<b>Lesson 1 &middot; the computational graph</b>"),
                widgets.HBox(list(self.checkboxes.values()), layout=row),
                widgets.HBox([self.op, self.x, self.y, *self.buttons.values()], layout=row),
                self.code_hint,
                self.status,
                self.plot_output,
                self.table,
            ]
        )
        self._say("Pick an operation and its operands, then click apply.")
        self.refresh()

    # ------------------------------------------------------------------ public

    def refresh(self) -> None:
        """Redraw the menus, the table and the graph from the state."""
        self._syncing = True
        try:
            for name, box in self.checkboxes.items():
                box.value = self.state.requires_grad[name]
            names = self.state.names
            for menu, fallback in ((self.x, self.state.last), (self.y, "b")):
                keep = menu.value if menu.value in names else fallback
                menu.options = names
                menu.value = keep
        finally:
            self._syncing = False
        self._update_code_hint()
        self.table.value = self._table_html()
        self._show_figure(self.draw_figure())

    def draw_figure(self) -> Figure:
        return draw_graph(self.state.graph())

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    # ------------------------------------------------------------------ events

    def _on_flag(self, name: str, value: bool) -> None:
        if self._syncing:
            return
        self.state.set_requires_grad(name, value)
        self._say(f"{name}.requires_grad = {value}: the forward pass ran again, so the graph was recorded anew.")
        self.refresh()

    def _on_apply(self) -> None:
        try:
            step = self.state.apply(self.op.value, self.x.value, self.y.value)
        except ValueError as exc:
            self._say(f"Not applied: {exc}")
            return
        t = self.state.tensors[step.result]
        grad_fn = None if t.grad_fn is None else type(t.grad_fn).__name__
        self._say(f"{step.code}: requires_grad={t.requires_grad}, grad_fn={grad_fn}")
        self.x.options = self.state.names
        self.x.value = step.result
        self.refresh()

    def _on_undo(self) -> None:
        step = self.state.undo()
        self._say("Nothing to undo." if step is None else f"Undid {step.code}.")
        self.refresh()

    def _on_reset(self) -> None:
        self.state.reset()
        self._say("Reset: no operations, a and b require grad, c does not.")
        self.refresh()

    # ------------------------------------------------------------------ pieces

    def _say(self, text: str) -> None:
        self.status.value = f"<i>{html.escape(text)}</i>"

    def _update_code_hint(self) -> None:
        arity, template = OPERATIONS[self.op.value]
        self.y.disabled = arity < 2
        code = template.format(x=self.x.value, y=self.y.value)
        self.code_hint.value = f"next: <code>t{len(self.state.steps) + 1} = {html.escape(code)}</code>"

    def _table_html(self) -> str:
        body = html.escape(self.state.table())
        return (
            "<div><b>Tensors</b></div><pre style='margin:0; padding:4px; font-size:12px; "
            f"border:1px solid #ccc; overflow:auto; white-space:pre'>{body}</pre>"
        )

    def _show_figure(self, fig: Figure) -> None:
        show_figure(self.plot_output, fig, "graph explorer figure")


def _positions(graph: Graph) -> dict[int, tuple[float, float]]:
    layers: dict[int, list[int]] = {}
    for node in graph.nodes:
        layers.setdefault(node.depth, []).append(node.id)
    where = {}
    for depth, ids in layers.items():
        for i, node_id in enumerate(ids):
            where[node_id] = ((i + 1) / (len(ids) + 1), -float(depth))
    return where


def _label(node) -> str:
    if node.kind == "constant":
        return f"{node.tensor}\n(no grad)" if node.tensor else "constant"
    if node.tensor:
        return f"{node.label}\n({node.tensor})"
    return node.label


def draw_graph(graph: Graph) -> Figure:
    """Draw the graph top-down: the target's grad_fn on top, arrows along next_functions."""
    fig = Figure(figsize=FIGSIZE, layout="constrained")
    ax = fig.subplots()
    where = _positions(graph)
    depth = max((n.depth for n in graph.nodes), default=0)
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
    for parent, child in set(graph.edges):
        dashed = any(n.id == child and n.kind == "constant" for n in graph.nodes)
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
            },
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(-depth - 0.6, 0.6)
    ax.axis("off")
    ax.set_title(
        f"graph behind {graph.target} (arrows follow next_functions, the backward direction)\n{graph.note}",
        fontsize=9,
    )
    kinds = [k for k in STYLES if any(n.kind == k for n in graph.nodes)]
    handles = [
        Patch(
            facecolor=STYLES[k]["facecolor"],
            edgecolor=STYLES[k]["edgecolor"],
            linestyle=STYLES[k]["linestyle"],
            label=LEGEND[k],
        )
        for k in kinds
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles) or 1, fontsize=8, frameon=False)
    return fig
