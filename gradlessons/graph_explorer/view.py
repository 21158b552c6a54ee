"""A thin ipywidgets view over :class:`GraphExplorerState`.

Core ipywidgets only: a guide box (``HTML``, beside the drawn graph) with *skip step* and *restart
guide* buttons, one
``Checkbox`` per input for ``requires_grad``, ``Dropdown`` menus for the operation and its
operands, and ``Button`` widgets to apply, undo and reset. The graph is drawn by
:mod:`gradlessons.graph_explorer.drawing` and shown as a PNG in an ``Output`` widget, as every
explorer does (:func:`gradlessons.figures.show_figure`).

Every word is translated when the view is built or a line is said (:func:`labels` gives the buttons'
texts in today's language); the checkboxes are code (``a.requires_grad``) and stay.
"""

from __future__ import annotations

import html
import re

import ipywidgets as widgets
from matplotlib.figure import Figure

from gradlessons.figures import DPI, show_figure
from gradlessons.graph_explorer.drawing import graph_alt, graph_figure
from gradlessons.graph_explorer.state import APPLY, INPUT_NAMES, OPERATIONS, GraphExplorerState
from gradlessons.guide_view import beside_the_figure, guide_controls
from gradlessons.guide_view import labels as guide_labels
from gradlessons.i18n import N_, _

#: The drawn graph beside the guide, in a 1366×768 window with JupyterLab's file browser open.
FIGSIZE = (6.0, 3.2)
#: The tensor table shows this many lines before it scrolls (a long expression adds a row per step).
TABLE_HEIGHT = "8em"
#: The buttons' texts (English msgids): apply, undo, reset.
BUTTONS = {"apply": APPLY, "undo": N_("undo"), "reset": N_("reset")}


def labels() -> dict[str, str]:
    """The buttons' texts in today's language: ``"apply"``, ``"undo"``, ``"reset"``, then the guide's
    ``"skip"`` and ``"restart"``, and ``"operation"`` (the operation menu's description)."""
    return {
        **{name: _(text) for name, text in BUTTONS.items()},
        **guide_labels(),
        # i18n: the description of the menu of operations (sin, exp, detach, ...)
        "operation": _("operation"),
    }


class GraphExplorer:
    """A guide, controls, the drawn graph and a tensor table over a :class:`GraphExplorerState`.

    Attributes:
        state: the model (with its guide, ``state.guide``).
        widget: the top-level ``VBox`` a notebook displays.
        guide: ``HTML`` box with the guide's current step (and what the step just done showed).
        guide_buttons: ``"skip"`` and ``"restart"`` -> ``Button``.
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
        label = labels()
        self.guide_controls = guide_controls(self._on_skip, self._on_restart, _("Back to the start, and to step 1"))
        self.guide, self.guide_buttons = self.guide_controls.text, self.guide_controls.buttons
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
        self.op = widgets.Dropdown(options=list(OPERATIONS), value="sin", description=label["operation"])
        self.x = widgets.Dropdown(options=self.state.names, value=self.state.last, description="x")
        self.y = widgets.Dropdown(options=self.state.names, value="b", description="y")
        for menu in (self.op, self.x, self.y):
            menu.layout = widgets.Layout(width="180px")
        self.op.observe(lambda _change: self._update_code_hint(), names="value")
        self.x.observe(lambda _change: self._update_code_hint(), names="value")
        self.y.observe(lambda _change: self._update_code_hint(), names="value")
        self.buttons = {
            "apply": widgets.Button(description=label["apply"], button_style="primary", tooltip=_("run the operation")),
            "undo": widgets.Button(description=label["undo"], tooltip=_("forget the newest operation")),
            "reset": widgets.Button(description=label["reset"], button_style="warning", tooltip=_("back to the start")),
        }
        for button in self.buttons.values():  # three default-width buttons pushed reset onto a row of its own
            button.layout = widgets.Layout(width="auto", min_width="64px")
        self.buttons["apply"].on_click(lambda _b: self._on_apply())
        self.buttons["undo"].on_click(lambda _b: self._on_undo())
        self.buttons["reset"].on_click(lambda _b: self._on_reset())
        self.code_hint = widgets.HTML()
        self.status = widgets.HTML()
        self.status.add_class("explorer-status")  # lets a page (and the browser tests) find the status
        # not width 100%: with the widget margins it overflowed the output area
        self.table = widgets.HTML(layout=widgets.Layout(width="auto", align_self="stretch"))
        self.plot_output = widgets.Output(layout=widgets.Layout(min_height=f"{FIGSIZE[1] * DPI:.0f}px"))
        row = widgets.Layout(flex_flow="row wrap", align_items="center")
        self.widget = widgets.VBox(
            [
                widgets.HTML(_("<b>Lesson 1 &middot; the computational graph</b>")),
                widgets.HBox(list(self.checkboxes.values()), layout=row),
                widgets.HBox([self.op, self.x, self.y, *self.buttons.values()], layout=row),
                self.code_hint,
                self.status,
                beside_the_figure(self.plot_output, self.guide_controls, FIGSIZE[1] * DPI),
                self.table,
            ]
        )
        self._say(self._opening())
        self.refresh()

    # ------------------------------------------------------------------ public

    def refresh(self, x: str | None = None) -> None:
        """Redraw the guide, the menus, the table and the graph from the state (``x``: choose this operand)."""
        self._syncing = True
        try:
            for name, box in self.checkboxes.items():
                box.value = self.state.requires_grad[name]
            names = self.state.names
            for menu, fallback in ((self.x, self.state.last), (self.y, "b")):
                keep = menu.value if menu.value in names else fallback
                if menu is self.x and x in names:
                    keep = x
                menu.options = names
                menu.value = keep
        finally:
            self._syncing = False
        self._update_code_hint()
        self.guide_controls.show(self.state.guide)
        self.table.value = self._table_html()
        self._show_figure(self.draw_figure())

    def draw_figure(self) -> Figure:
        return graph_figure(self.state.graph(), figsize=FIGSIZE)

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    # ------------------------------------------------------------------ events

    def _on_flag(self, name: str, value: bool) -> None:
        if self._syncing:
            return
        self.state.set_requires_grad(name, value)
        self._say(
            _("{name}.requires_grad = {value}: the forward pass ran again, so the graph was recorded anew.").format(
                name=name, value=value
            )
        )
        self.refresh()

    def _on_apply(self) -> None:
        try:
            step = self.state.apply(self.op.value, self.x.value, self.y.value)
        except ValueError as exc:
            self._say(_("Not applied: {reason}").format(reason=exc))
            return
        t = self.state.tensors[step.result]
        grad_fn = None if t.grad_fn is None else type(t.grad_fn).__name__
        self._say(f"{step.code}: requires_grad={t.requires_grad}, grad_fn={grad_fn}")
        self.refresh(x=step.result)

    def _on_undo(self) -> None:
        step = self.state.undo()
        self._say(_("Nothing to undo.") if step is None else _("Undid {code}.").format(code=step.code))
        self.refresh()

    def _on_reset(self) -> None:
        self.state.reset()
        self._say(_("Reset: {opening}").format(opening=self._opening()))
        self.refresh(x=self.state.last)

    def _on_skip(self) -> None:
        self.state.skip_guide_step()
        self.guide_controls.show(self.state.guide)

    def _on_restart(self) -> None:
        self.state.restart_guide()
        self._say(_("Guide restarted: {opening}").format(opening=self._opening()))
        self.op.value = "sin"
        self.refresh(x=self.state.last)

    # ------------------------------------------------------------------ pieces

    def _opening(self) -> str:
        if not self.state.steps:
            return _(
                "a and b require grad, c does not. Pick an operation and its operands, then click {apply}."
            ).format(apply=_(APPLY))
        code = ", ".join(step.code for step in self.state.steps)
        return _("{code} ran; the drawing shows the graph behind {name}.").format(code=code, name=self.state.last)

    def _say(self, text: str) -> None:
        self.status.value = f"<i>{html.escape(text)}</i>"

    def _update_code_hint(self) -> None:
        arity, template = OPERATIONS[self.op.value]
        self.y.disabled = arity < 2
        code = template.format(x=self.x.value, y=self.y.value)
        # i18n: before the code the apply button would run, e.g. "next: t3 = t2.sin()"
        self.code_hint.value = _("next: {code}").format(
            code=f"<code>t{len(self.state.steps) + 1} = {html.escape(code)}</code>"
        )

    def _table_html(self) -> str:
        body = html.escape(self.state.table())
        return (
            _("<div><b>Tensors</b></div>") + "<pre style='margin:0; padding:4px; font-size:12px; "
            f"max-height:{TABLE_HEIGHT}; border:1px solid #ccc; overflow:auto; white-space:pre'>{body}</pre>"
        )

    def _show_figure(self, fig: Figure) -> None:
        show_figure(self.plot_output, fig, _("graph explorer figure"), graph_alt(self.state.graph()))


def _code(text: str) -> str:
    """Escape ``text`` for HTML and show what is between backticks as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))
