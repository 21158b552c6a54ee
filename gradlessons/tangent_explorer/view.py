"""The ipywidgets view of the lesson 2 tangent explorer.

``TangentExplorer`` shows a :class:`~gradlessons.tangent_explorer.state.TangentExplorerState`:
the guided tour beside the figure (the current step and what to look at in the step just done, with
buttons to skip a step or restart the guide), a dropdown of functions, a slider for x, a
button that calls ``backward()`` once more without clearing ``.grad``, a reset button, a status
line and the figure (the curve, the true tangent, and, after repeated backward() calls, the
tangent drawn with the slope ``.grad`` now holds).

Like the lesson 3 explorer (see ``gradlessons/gradient_explorer/view.py``), it uses only core widgets
present in ipywidgets 7.7 and 8, draws a ``matplotlib.figure.Figure`` without pyplot, and puts
the PNG into an ``Output`` widget's ``outputs`` so it works without a live kernel.

Every label, tooltip and figure text is translated when the view is built or the figure drawn
(:func:`labels` gives the buttons' texts in today's language).
"""

from __future__ import annotations

import html

import ipywidgets as widgets
from matplotlib.figure import Figure

from gradlessons.figures import DPI, show_figure
from gradlessons.formatting import format_value
from gradlessons.guide_view import beside_the_figure, guide_controls
from gradlessons.guide_view import labels as guide_labels
from gradlessons.i18n import N_, _
from gradlessons.tangent_explorer.state import AGAIN, FUNCTIONS, X_RANGE, TangentExplorerState

FIGSIZE = (6.0, 4.0)  # beside the guide, in a 1366×768 window with JupyterLab's file browser open
CURVE_COLOR = "#1f77b4"
TANGENT_COLOR = "#2ca02c"
WRONG_COLOR = "#d62728"
# i18n: a button: back to the explorer's first function and point
RESET = N_("reset")


def labels() -> dict[str, str]:
    """The buttons' texts in today's language: ``"again"``, ``"reset"``, then the guide's ``"skip"``
    and ``"restart"``; ``"functions"`` maps each function's key to its menu entry."""
    return {"again": _(AGAIN), "reset": _(RESET), **guide_labels()}


def function_labels() -> dict[str, str]:
    """The function menu's entries in today's language: key -> label."""
    return {key: _(fn.label) for key, fn in FUNCTIONS.items()}


class TangentExplorer:
    """Dropdown, slider, two buttons, a status line and the plot over a state.

    Attributes:
        state: The model.
        widget: The top-level ``VBox`` a notebook displays.
        guide: ``HTML`` panel of the guided tour: what to look at in the step just done, and what to do now.
        guide_buttons: ``"skip"`` and ``"restart"`` -> the guide's ``Button`` s (shared by every explorer).
        function_menu: ``Dropdown`` of the functions.
        x_slider: ``FloatSlider`` for the point x.
        again_button: calls ``backward()`` again on the same x without clearing ``.grad``.
        reset_button: back to the start.
        status: ``HTML`` line with the slopes.
        plot_output: ``Output`` holding the figure as a PNG.
    """

    def __init__(self, state: TangentExplorerState | None = None) -> None:
        self.state = state if state is not None else TangentExplorerState()
        self._syncing = False
        self.function_menu = widgets.Dropdown(
            options=[(label, key) for key, label in function_labels().items()],
            value=self.state.function,
            description="f(x) =",
        )
        self.x_slider = widgets.FloatSlider(
            value=self.state.x,
            min=X_RANGE[0],
            max=X_RANGE[1],
            step=0.05,
            description="x",
            continuous_update=False,
            readout_format=".2f",
            layout=widgets.Layout(width="420px"),  # the default is too short to move x finely
        )
        label = labels()
        self.again_button = widgets.Button(
            description=label["again"],
            tooltip=_("y = f(t); y.backward() once more on the same t, without clearing t.grad"),
            button_style="warning",
            layout=widgets.Layout(width="auto"),
        )
        self.reset_button = widgets.Button(
            description=label["reset"],
            tooltip=_("Back to f(x) = x², x = 1, fresh t.grad"),
            layout=widgets.Layout(width="auto"),
        )
        self.status = widgets.HTML(layout=widgets.Layout(margin="4px 0px"))
        self.status.add_class("explorer-status")  # lets a page (and the browser tests) find the status
        self.guide_controls = guide_controls(
            lambda: self._act(self.state.skip_guide_step),
            lambda: self._reset(self.state.restart_guide),
            _("Back to step 1, with f(x) = x² at x = 1"),
        )
        self.guide, self.guide_buttons = self.guide_controls.text, self.guide_controls.buttons
        self.guide.add_class("tangent-guide")  # lets a page (and the browser test) find this explorer's guide
        self.plot_output = widgets.Output(layout=widgets.Layout(min_height=f"{FIGSIZE[1] * DPI:.0f}px"))

        self.function_menu.observe(self._on_function, names="value")
        self.x_slider.observe(self._on_x, names="value")
        self.again_button.on_click(lambda _b: self._act(self.state.backward_again))
        self.reset_button.on_click(lambda _b: self._reset())

        self.widget = widgets.VBox(
            [
                widgets.HTML(_("<b>Lesson 2 &middot; the slope from <code>backward()</code></b>")),
                widgets.HBox([self.function_menu, self.x_slider]),
                widgets.HBox([self.again_button, self.reset_button]),
                self.status,
                beside_the_figure(self.plot_output, self.guide_controls, FIGSIZE[1] * DPI),
            ]
        )
        self.refresh()

    # ------------------------------------------------------------------ public

    def refresh(self) -> None:
        self.status.value = self._status_html()
        self.guide_controls.show(self.state.guide)
        self._show_figure(draw_tangent(self.state))

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    # ------------------------------------------------------------------ events

    def _act(self, action, *args) -> None:
        action(*args)
        self.refresh()

    def _on_function(self, change) -> None:
        if not self._syncing:
            self._act(self.state.set_function, change["new"])

    def _on_x(self, change) -> None:
        if not self._syncing:
            self._act(self.state.set_x, float(change["new"]))

    def _reset(self, action=None) -> None:
        (action or self.state.reset)()
        self._syncing = True
        try:  # move the controls without triggering a second computation
            self.function_menu.value = self.state.function
            self.x_slider.value = self.state.x
        finally:
            self._syncing = False
        self.refresh()

    # ------------------------------------------------------------------ pieces

    def _status_html(self) -> str:
        s = self.state
        parts = [
            _("slope from <code>backward()</code>: <b>{slope}</b>").format(slope=format_value(s.true_slope)),
            _("finite difference: <b>{slope}</b>").format(slope=f"{s.finite_difference_slope():.4f}"),
            _("<code>t.grad</code> now: <b>{grad}</b>").format(grad=format_value(s.held_slope)),
            _("backward() calls: <b>{count}</b>").format(count=s.backward_calls),
        ]
        return (
            "<div style='line-height:1.6'>"
            + " &nbsp;|&nbsp; ".join(parts)
            + f"<br><i>{html.escape(s.summary())}</i></div>"
        )

    def _show_figure(self, fig: Figure) -> None:
        show_figure(self.plot_output, fig, _("tangent explorer figure"))


def draw_tangent(state: TangentExplorerState) -> Figure:
    """The curve, the point, the tangent from backward() and, after repeated calls, the tangent
    drawn with the accumulated ``.grad`` (wrong)."""
    fig = Figure(figsize=FIGSIZE, layout="constrained")
    ax = fig.subplots()
    xs, ys = state.curve()
    ax.plot(xs, ys, color=CURVE_COLOR, linewidth=2, label=f"f(x) = {state.label}")
    tx, ty = state.tangent(state.true_slope)
    ax.plot(
        tx,
        ty,
        color=TANGENT_COLOR,
        linewidth=2,
        label=_("tangent, slope {slope}").format(slope=format_value(state.true_slope)),
    )
    if state.backward_calls > 1:
        wx, wy = state.tangent(state.held_slope)
        ax.plot(
            wx,
            wy,
            color=WRONG_COLOR,
            linestyle="--",
            linewidth=2,
            label=_("slope from t.grad after {calls} calls: {slope}").format(
                calls=state.backward_calls, slope=format_value(state.held_slope)
            ),
        )
    ax.plot([state.x], [state.value], "o", color="black", zorder=5)
    ax.annotate(
        f"x = {state.x:.2f}",
        (state.x, state.value),
        textcoords="offset points",
        xytext=(6, -14),
        fontsize=8,
    )
    # y range from the curve only, so a very steep wrong tangent does not squash the picture.
    low, high = min(ys), max(ys)
    span = (high - low) or 1.0
    ax.set_ylim(low - 0.25 * span, high + 0.25 * span)
    ax.set_xlim(*X_RANGE)
    ax.axhline(0, color="#999999", linewidth=0.8)
    ax.axvline(0, color="#999999", linewidth=0.8)
    ax.set_xlabel("x")
    ax.set_ylabel("f(x)")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    ax.set_title(
        _("f(x) = {function}: tangent at x = {x}").format(function=state.label, x=f"{state.x:.2f}"), fontsize=10
    )
    return fig
