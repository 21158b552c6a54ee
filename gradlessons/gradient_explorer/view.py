"""The ipywidgets view of the lesson 3 gradient explorer.

``GradExplorer`` draws a :class:`~gradlessons.gradient_explorer.state.GradExplorerState`:
one button per action, a status line, a two-panel figure with the guided sequence's current step
beside it (with *skip step* / *restart guide*, shared by every explorer) and an action log. All the PyTorch
work, and the guide's logic, happen in the state; this module only displays them.

Portability notes (JupyterLab 4 with ipywidgets 8, Google Colab with 7.7):

* only core widgets and traits present in both major versions are used
  (``description``, ``tooltip``, ``button_style``, ``layout``, ``on_click``);
* the figure is a ``matplotlib.figure.Figure`` made without pyplot and rendered
  to PNG with Agg, so it neither depends on the notebook's matplotlib backend
  nor registers a pyplot figure that could leak or be shown a second time;
* the PNG is put into the ``Output`` widget by setting its ``outputs`` trait
  (what ``Output.append_display_data`` does), which every frontend renders and
  which, unlike ``with out: display(fig)``, also works without a live kernel,
  so the tests can check that a new image arrived.

Language: the tables below hold English msgids (``N_``) and are translated where a widget or a figure
is made (:func:`labels` for the buttons), so a lesson that chose its language after importing this
module is shown in it.  Button texts that are PyTorch calls stay as they are.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as widgets
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import blended_transform_factory

from gradlessons.figures import DPI, show_figure
from gradlessons.formatting import format_value
from gradlessons.gradient_explorer.state import ACTIONS, START_LABEL, GradExplorerState, Record, shown_action
from gradlessons.guide_view import SCROLLS_INSIDE, beside_the_figure, guide_controls
from gradlessons.guide_view import labels as guide_labels
from gradlessons.i18n import N_, _

#: Button text when the full code is too long for a compact button; the tooltip
#: always holds the full code.
SHORT_LABELS = {
    "zero_grad_set_to_none": "zero_grad(set_to_none=True)",
    "zero_grad_fill_zeros": "zero_grad(set_to_none=False)",
    "reset": N_("reset (start over)"),
}
#: The labels above that are code, shown as they are in every language.
CODE_LABELS = frozenset({"zero_grad_set_to_none", "zero_grad_fill_zeros"})

TOOLTIPS = {
    "backward": N_("loss.backward(): compute the loss at w and ADD its gradient to w.grad"),
    "step": N_("optimizer.step(): w -= lr * w.grad (does nothing when w.grad is None)"),
    "zero_grad": N_("optimizer.zero_grad(): PyTorch's default way of clearing w.grad"),
    "zero_grad_set_to_none": N_("optimizer.zero_grad(set_to_none=True): w.grad becomes None"),
    "zero_grad_fill_zeros": N_("optimizer.zero_grad(set_to_none=False): keep the tensor, fill w.grad with 0.0"),
    "grad_to_none": N_("w.grad = None: forget the gradient by hand"),
    "reset": N_("Start over: w back to its first value, w.grad None, fresh optimizer"),
}

BUTTON_STYLES = {"backward": "primary", "step": "success", "reset": ""}
CLEAR_STYLE = "warning"

#: Short names for the x tick labels (the log shows the full code).
TICK_NAMES = {
    START_LABEL: START_LABEL,  # translated as the log translates it (``shown_action``)
    "loss.backward()": "backward",
    "optimizer.step()": "step",
    "optimizer.zero_grad()": "zero_grad()",
    "optimizer.zero_grad(set_to_none=True)": "zero_grad(True)",
    "optimizer.zero_grad(set_to_none=False)": "zero_grad(False)",
    "w.grad = None": "grad = None",
}
#: Above this many plotted actions the tick labels are plain numbers (names would overlap).
MAX_NAMED_TICKS = 14
#: Values are written next to the points only while the plot is this sparse.
MAX_ANNOTATED_POINTS = 14

FIGSIZE = (6.0, 3.5)  # beside the guide, in a 1366×768 window with JupyterLab's file browser open
#: The log shows this much before it scrolls (newest first, so the latest actions are the ones shown).
LOG_HEIGHT = "6.5em"

# Colours: one per meaning, reused in the legend.
GRAD_COLOR = "#1f77b4"
ZERO_COLOR = "#ff7f0e"
NONE_COLOR = "#7f7f7f"
CLEAR_COLOR = "#d62728"
WEIGHT_COLOR = "#2ca02c"

# The "None" band occupies the top of the gradient panel, in axes coordinates,
# so it never collides with real values whatever their scale.
NONE_BAND = (0.82, 1.0)
NONE_Y = 0.91


def labels() -> dict[str, str]:
    """Every button's text in today's language: action name (a key of ``ACTIONS``) -> label, then the
    guide's ``"skip"`` and ``"restart"``.  PyTorch calls read the same in every language."""
    texts = {name: ACTIONS[name] for name in ACTIONS}
    texts.update({name: label if name in CODE_LABELS else _(label) for name, label in SHORT_LABELS.items()})
    return {**texts, **guide_labels()}


def _tick_name(action: str) -> str:
    return shown_action(action) if action == START_LABEL else TICK_NAMES.get(action, action)


class GradExplorer:
    """Guide, buttons, status line, log and plot over a :class:`GradExplorerState`.

    Args:
        state: The state to show and drive; a fresh ``GradExplorerState()`` if omitted.

    Attributes:
        state: The model.
        widget: The top-level ``VBox`` (what a notebook displays).
        buttons: Action name (a key of ``ACTIONS``) -> its ``Button``.
        guide: ``HTML`` box with the guide's current step and what the last step showed.
        guide_buttons: ``"restart"`` and ``"skip"`` -> their ``Button``.
        status: ``HTML`` line with the current ``w.grad``, ``w`` and loss, and the last note.
        log: ``HTML`` action log, newest action first.
        plot_output: ``Output`` holding the figure as a PNG.
    """

    def __init__(self, state: GradExplorerState | None = None) -> None:
        self.state = state if state is not None else GradExplorerState()
        self.labels = labels()
        self.buttons: dict[str, widgets.Button] = {name: self._make_button(name) for name in ACTIONS}
        self.guide_controls = guide_controls(
            lambda: self._on_guide("skip"),
            lambda: self._on_guide("restart"),
            _("Start over and follow the steps from step 1"),
        )
        self.guide, self.guide_buttons = self.guide_controls.text, self.guide_controls.buttons
        self.status = widgets.HTML(layout=widgets.Layout(margin="4px 0px"))
        self.status.add_class("explorer-status")  # lets a page (and the browser tests) find the status
        # not width 100%: with the widget margins it overflowed the output area
        self.log = widgets.HTML(layout=widgets.Layout(width="auto", align_self="stretch"))
        self.plot_output = widgets.Output(layout=widgets.Layout(min_height=f"{FIGSIZE[1] * DPI:.0f}px"))

        row = widgets.Layout(flex_flow="row wrap")
        clear_names = [name for name in ACTIONS if name.startswith(("zero_grad", "grad_to"))]
        other_names = [name for name in ACTIONS if name not in clear_names]
        self.widget = widgets.VBox(
            [
                widgets.HTML(_("<b>Lesson 3 &middot; reading and zeroing <code>.grad</code></b>")),
                widgets.HBox([self.buttons[n] for n in other_names], layout=row),
                widgets.HBox([self.buttons[n] for n in clear_names], layout=row),
                self.status,
                beside_the_figure(self.plot_output, self.guide_controls, FIGSIZE[1] * DPI),
                self.log,
            ]
        )
        self.refresh()

    # ------------------------------------------------------------------ public

    def refresh(self) -> None:
        """Redraw the guide, the status line, the log and the figure from the state."""
        self.guide_controls.show(self.state.guide)
        self.status.value = self._status_html()
        self.log.value = self._log_html()
        self._show_figure(self.draw_figure())

    def draw_figure(self) -> Figure:
        """Build the two-panel figure (``.grad`` on top, ``w`` below) for the current history."""
        return draw_history(self.state.history, optimum=self.state.optimum)

    def _ipython_display_(self) -> None:
        """Show the widget when the explorer is the last expression of a cell."""
        # Imported here: IPython is always present where this is called.
        from IPython.display import display

        display(self.widget)

    # ------------------------------------------------------------------ pieces

    def _make_button(self, name: str) -> widgets.Button:
        style = BUTTON_STYLES.get(name, CLEAR_STYLE)
        button = widgets.Button(
            description=self.labels[name],
            tooltip=_(TOOLTIPS[name]),
            button_style=style,
            layout=widgets.Layout(width="auto", margin="2px 4px 2px 0px"),
        )
        button.on_click(lambda _button, name=name: self._on_action(name))
        return button

    def _on_action(self, name: str) -> None:
        self.state.apply(name)
        self.refresh()

    def _on_guide(self, what: str) -> None:
        if what == "restart":
            self.state.restart_guide()
        else:
            self.state.skip_guide_step()
        self.refresh()

    def _status_html(self) -> str:
        state = self.state
        last = state.history[-1]
        grad = format_value(state.grad)
        parts = [
            f"<code>w.grad = {grad}</code>",
            f"<code>w = {format_value(state.weight)}</code>",
            f"<code>loss = {format_value(state.loss_value())}</code>",
            _("backward() calls since the last clear: <b>{count}</b>").format(count=state.backward_count_since_clear),
        ]
        return (
            "<div style='line-height:1.6'>"
            + " &nbsp;&nbsp;|&nbsp;&nbsp; ".join(parts)
            + f"<br><i>{html.escape(last.note)}</i></div>"
        )

    def _log_html(self) -> str:
        # Newest first: the log box scrolls, and the latest action is the one
        # the student is looking for.
        lines = reversed(self.state.log_lines())
        body = html.escape("\n".join(lines))
        return (
            _("<div><b>Log</b> (newest first)</div>")
            + f"<pre style='max-height:{LOG_HEIGHT}; overflow:auto; white-space:pre; margin:0; padding:4px; "
            f"{SCROLLS_INSIDE} "
            f"font-size:12px; border:1px solid #ccc'>{body}</pre>"
        )

    def _show_figure(self, fig: Figure) -> None:
        show_figure(self.plot_output, fig, _("gradient explorer figure"))


def draw_history(history: Sequence[Record], optimum: float | None = None) -> Figure:
    """Plot ``w.grad`` (top) and ``w`` (bottom) against the action number.

    ``None`` gradients are drawn as hollow grey circles in a separate band at
    the top of the gradient panel; a gradient of ``0.0`` is a filled orange
    diamond on the zero line. Clearing actions are dashed red vertical lines.
    """
    fig = Figure(figsize=FIGSIZE, layout="constrained")
    ax_grad, ax_w = fig.subplots(2, 1, sharex=True, height_ratios=(3, 2))
    xs = [r.index for r in history]

    _draw_clears(ax_grad, ax_w, history)
    _draw_grad_panel(ax_grad, history)
    _draw_weight_panel(ax_w, history, optimum)

    # x axis: whole action numbers, padded so the end points are not on the frame.
    ax_w.set_xlim(xs[0] - 0.6, max(xs[-1], xs[0] + 4) + 0.6)
    if len(history) <= MAX_NAMED_TICKS:
        ax_w.set_xticks(xs)
        ax_w.set_xticklabels(
            [f"{r.index}\n{_tick_name(r.action)}" for r in history],
            fontsize=7,
            rotation=35,
            ha="right",
            rotation_mode="anchor",
        )
    else:
        ax_w.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax_w.set_xlabel(_("action number"), fontsize=9)

    handles = [
        Line2D([], [], color=GRAD_COLOR, marker="o", label=_("w.grad (a tensor)")),
        Line2D([], [], color=ZERO_COLOR, marker="D", linestyle="", label="w.grad = 0.0"),
        Line2D(
            [],
            [],
            color=NONE_COLOR,
            marker="o",
            markerfacecolor="white",
            linestyle="",
            label=_("w.grad is None"),
        ),
        # i18n: legend: the dashed line where the gradient was cleared
        Line2D([], [], color=CLEAR_COLOR, linestyle="--", label=_("a clear")),
        Line2D([], [], color=WEIGHT_COLOR, marker="o", markersize=4, label="w"),
    ]
    fig.legend(handles=handles, loc="outside upper center", ncol=5, fontsize=8, frameon=False)
    return fig


def _draw_clears(ax_grad, ax_w, history) -> None:
    for record in history:
        if record.is_clear:
            for ax in (ax_grad, ax_w):
                ax.axvline(record.index, color=CLEAR_COLOR, linestyle="--", linewidth=1, alpha=0.7)


def _draw_grad_panel(ax, history) -> None:
    xs = [r.index for r in history]
    # A NaN breaks the line, so the curve has a gap wherever w.grad is None.
    line_ys = [float("nan") if r.grad is None else r.grad for r in history]
    ax.plot(xs, line_ys, color=GRAD_COLOR, linewidth=1.5, zorder=3)

    tensor = [r for r in history if r.grad is not None and r.grad != 0.0]
    zeros = [r for r in history if r.grad is not None and r.grad == 0.0]
    nones = [r for r in history if r.grad is None]
    ax.plot([r.index for r in tensor], [r.grad for r in tensor], "o", color=GRAD_COLOR, zorder=4)
    ax.plot([r.index for r in zeros], [0.0] * len(zeros), "D", color=ZERO_COLOR, markersize=7, zorder=5)
    ax.axhline(0.0, color="#999999", linewidth=0.8, zorder=1)

    # y range for the real values, leaving the top NONE_BAND for the None markers.
    values = [r.grad for r in history if r.grad is not None] + [0.0]
    low, high = min(values), max(values)
    if low == high:
        # Nothing but None or 0.0 so far: show a symmetric unit range around 0.
        low, high = -1.0, 1.0
    span = high - low
    bottom = low - 0.18 * span
    data_top = high + 0.15 * span
    top = bottom + (data_top - bottom) / (NONE_BAND[0] - 0.02)
    ax.set_ylim(bottom, top)
    # Numeric ticks only below the band, so that "None" is the band's only label.
    ticks = MaxNLocator(nbins=5).tick_values(bottom, data_top)
    ax.set_yticks([t for t in ticks if bottom <= t <= data_top])

    band = blended_transform_factory(ax.transAxes, ax.transAxes)
    ax.fill_between([0, 1], NONE_BAND[0], NONE_BAND[1], transform=band, color="#eeeeee", zorder=0, linewidth=0)
    marker_transform = blended_transform_factory(ax.transData, ax.transAxes)
    ax.plot(
        [r.index for r in nones],
        [NONE_Y] * len(nones),
        "o",
        transform=marker_transform,
        markerfacecolor="white",
        markeredgecolor=NONE_COLOR,
        markeredgewidth=1.5,
        markersize=8,
        zorder=5,
        clip_on=False,
    )
    ax.text(
        -0.01,
        NONE_Y,
        "None",
        transform=band,
        ha="right",
        va="center",
        fontsize=8,
        color="#444444",
        family="monospace",
    )

    if len(history) <= MAX_ANNOTATED_POINTS:
        previous = 0.0
        for r in history:
            if r.grad is None:
                previous = 0.0
                continue
            # Write the value on the side away from the incoming line, so they do not cross.
            offset = (0, -11) if r.grad < previous else (0, 6)
            ax.annotate(
                format_value(r.grad),
                (r.index, r.grad),
                textcoords="offset points",
                xytext=offset,
                ha="center",
                fontsize=7,
                color="#333333",
            )
            previous = r.grad
    ax.set_ylabel("w.grad", fontsize=9, family="monospace")
    ax.tick_params(labelsize=8)
    ax.grid(axis="y", alpha=0.3)


def _draw_weight_panel(ax, history, optimum) -> None:
    xs = [r.index for r in history]
    ws = [r.weight for r in history]
    # steps-post: w holds its value until the action that changes it.
    ax.plot(xs, ws, color=WEIGHT_COLOR, drawstyle="steps-post", linewidth=1.5)
    ax.plot(xs, ws, "o", color=WEIGHT_COLOR, markersize=4)
    if optimum is not None:
        ax.axhline(optimum, color=WEIGHT_COLOR, linestyle=":", linewidth=1, alpha=0.8)
        # Labelled on the left, where w is usually still far from the optimum.
        ax.text(
            0.01,
            optimum,
            _("best w = {weight}").format(weight=format_value(optimum)),
            transform=blended_transform_factory(ax.transAxes, ax.transData),
            ha="left",
            va="bottom",
            fontsize=7,
            color=WEIGHT_COLOR,
        )
    values = ws + ([optimum] if optimum is not None else [])
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    ax.set_ylim(low - 0.15 * span, high + 0.2 * span)
    ax.set_ylabel("w", fontsize=9, family="monospace")
    ax.tick_params(labelsize=8)
    ax.grid(axis="y", alpha=0.3)
