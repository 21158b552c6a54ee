"""The ipywidgets view of the lesson 4 inference explorer.

``InferenceExplorer`` draws an :class:`~gradlessons.inference_explorer.state.InferenceExplorerState`:
three switches (``torch.no_grad()``, ``torch.inference_mode()``, ``model.eval()``), a batch-size
slider, a "run forward pass" button and a reset button, a status for the last run (three lines), a
figure of saved-activation memory and forward time per run, coloured by the tracking mode, with the
guide beside it (the current step, what to look at in the last one, "skip step" and "restart guide"),
and a log.

As in the lesson 3 explorer (:mod:`gradlessons.gradient_explorer.view`): only core widgets present in
ipywidgets 7.7 and 8, a pyplot-free ``Figure`` rendered to PNG with Agg and put into an
``Output``'s ``outputs`` trait, so it also works without a live kernel and in the tests.

Every word is translated when the view is built or the figure drawn (:func:`labels` gives the
controls' texts in today's language); the switches are code and stay as they are.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as widgets
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from gradlessons.figures import DPI, padded_range, show_figure
from gradlessons.guide_view import SCROLLS_INSIDE, beside_the_figure, guide_controls
from gradlessons.guide_view import labels as guide_labels
from gradlessons.i18n import N_, _
from gradlessons.inference_explorer.state import MAX_BATCH, MIN_BATCH, RUN, InferenceExplorerState, Run

#: One colour per tracking regime, reused in the legend.
COLORS = {"tracking": "#d62728", "no_grad": "#1f77b4", "inference_mode": "#2ca02c"}
LEGEND = {
    "tracking": N_("tracking on (graph built)"),
    "no_grad": "torch.no_grad()",
    "inference_mode": "torch.inference_mode()",
}
#: Marker per model mode: dropout and batch norm behave differently in train and eval mode.
MARKERS = {False: "o", True: "s"}
MAX_ANNOTATED = 12
FIGSIZE = (6.0, 3.4)  # beside the guide, in a 1366×768 window with JupyterLab's file browser open
#: The log shows this much before it scrolls (newest first, so the latest runs are the ones shown).
LOG_HEIGHT = "6.5em"
# i18n: a button: forget every run and clear the switches
RESET = N_("reset")


def labels() -> dict[str, str]:
    """The controls' texts in today's language: ``"run"``, ``"reset"``, ``"batch_size"`` (the slider's
    description), then the guide's ``"skip"`` and ``"restart"``.  The switches are code: their texts
    are ``"with torch.no_grad()"``, ``"with torch.inference_mode()"`` and ``"model.eval()"`` everywhere."""
    return {"run": _(RUN), "reset": _(RESET), "batch_size": _("batch size"), **guide_labels()}


class InferenceExplorer:
    """Switches, slider, buttons, status, log and plot over an :class:`InferenceExplorerState`.

    Attributes:
        state: The model.
        widget: The top-level ``VBox``.
        no_grad, inference_mode, eval_mode: The three ``Checkbox`` switches.
        batch_size: The ``IntSlider``.
        run_button, reset_button: The ``Button`` s.
        status: ``HTML`` describing the last run.
        log: ``HTML`` log, newest run first.
        plot_output: ``Output`` holding the figure as a PNG.
        guide: ``HTML`` showing the guide's current step and what to look at in the last one.
        guide_buttons: ``"skip"`` and ``"restart"`` -> the guide's ``Button`` s (shared by every explorer).
    """

    def __init__(self, state: InferenceExplorerState | None = None) -> None:
        self.state = state if state is not None else InferenceExplorerState()
        label = labels()
        auto = widgets.Layout(width="auto", margin="0px 16px 0px 0px")  # room between a box and the next label
        self.no_grad = widgets.Checkbox(value=False, description="with torch.no_grad()", indent=False, layout=auto)
        self.inference_mode = widgets.Checkbox(
            value=False, description="with torch.inference_mode()", indent=False, layout=auto
        )
        self.eval_mode = widgets.Checkbox(value=False, description="model.eval()", indent=False, layout=auto)
        self.batch_size = widgets.IntSlider(
            value=self.state.batch_size,
            min=MIN_BATCH,
            max=MAX_BATCH,
            step=8,
            description=label["batch_size"],
            continuous_update=False,
            layout=widgets.Layout(width="420px"),
        )
        self.run_button = widgets.Button(
            description=label["run"], button_style="primary", tooltip=_("output = model(x) with these settings")
        )
        self.reset_button = widgets.Button(
            description=label["reset"], tooltip=_("forget all runs and clear the switches")
        )
        self.guide_controls = guide_controls(self._on_skip, self._on_restart_guide, _("Back to the guide's step 1"))
        self.guide, self.guide_buttons = self.guide_controls.text, self.guide_controls.buttons
        self.status = widgets.HTML()
        self.status.add_class("explorer-status")  # lets a page (and the browser tests) find the status
        # not width 100%: with the widget margins it overflowed the output area
        self.log = widgets.HTML(layout=widgets.Layout(width="auto", align_self="stretch"))
        self.plot_output = widgets.Output(layout=widgets.Layout(min_height=f"{FIGSIZE[1] * DPI:.0f}px"))

        for box, name in (
            (self.no_grad, "no_grad"),
            (self.inference_mode, "inference_mode"),
            (self.eval_mode, "eval_mode"),
        ):
            box.observe(lambda change, name=name: setattr(self.state, name, bool(change["new"])), names="value")
        self.batch_size.observe(lambda change: self.state.set_batch_size(change["new"]), names="value")
        self.run_button.on_click(lambda _button: self._on_run())
        self.reset_button.on_click(lambda _button: self._on_reset())

        row = widgets.Layout(flex_flow="row wrap")
        self.widget = widgets.VBox(
            [
                widgets.HTML(_("<b>Lesson 4 &middot; inference without a graph</b>")),
                widgets.HBox([self.no_grad, self.inference_mode, self.eval_mode], layout=row),
                widgets.HBox([self.batch_size, self.run_button, self.reset_button], layout=row),
                self.status,
                beside_the_figure(self.plot_output, self.guide_controls, FIGSIZE[1] * DPI),
                self.log,
            ]
        )
        self.refresh()

    def refresh(self) -> None:
        """Redraw the guide, the status, the log and the figure from the state."""
        self._refresh_guide()
        self.status.value = self._status_html()
        self.log.value = self._log_html()
        self._show_png(draw_runs(self.state.history))

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    # ------------------------------------------------------------------ callbacks

    def _on_run(self) -> None:
        self.state.run()
        self.refresh()

    def _on_skip(self) -> None:
        self.state.skip_guide_step()
        self._refresh_guide()

    def _on_restart_guide(self) -> None:
        self.state.restart_guide()
        self._refresh_guide()

    def _on_reset(self) -> None:
        self.state.reset()
        # The widgets follow the state back; their observers only re-set the same values.
        self.no_grad.value = self.inference_mode.value = self.eval_mode.value = False
        self.batch_size.value = self.state.batch_size
        self.refresh()

    # ------------------------------------------------------------------ pieces

    def _refresh_guide(self) -> None:
        self.guide_controls.show(self.state.guide)

    def _status_html(self) -> str:
        history = self.state.history
        if not history:
            return "<i>{}</i>".format(
                _("No run yet: choose the switches and a batch size, then click <b>{run}</b>.").format(run=_(RUN))
            )
        last = history[-1]
        # Three lines, not one per fact: the explorer must fit a laptop's window.
        lines = [
            [
                _("{code}, batch {batch}").format(
                    code=f"<code>{html.escape(last.label)}</code>", batch=last.batch_size
                ),
                f"<code>output.requires_grad = {last.requires_grad}</code>",
                f"<code>output.grad_fn = {html.escape(str(last.grad_fn))}</code>",
            ],
            [
                _("saved for backward: <b>{mb} MB</b>").format(mb=f"{last.saved_bytes / 1e6:.2f}"),
                _("forward time: <b>{ms} ms</b>").format(ms=f"{last.seconds * 1e3:.2f}"),
            ],
            [self._dropout_line(last)],
        ]
        return "<div style='line-height:1.6'>" + "<br>".join(" &nbsp;|&nbsp; ".join(line) for line in lines) + "</div>"

    @staticmethod
    def _dropout_line(last: Run) -> str:
        diff = f"{last.max_diff_vs_eval:.3g}"
        if last.dropout_active:
            return _("dropout active (train mode); largest difference from the eval output: {diff}").format(diff=diff)
        return _("dropout off (eval mode); largest difference from the eval output: {diff}").format(diff=diff)

    def _log_html(self) -> str:
        body = html.escape("\n".join(reversed(self.state.log_lines())))
        return (
            _("<div><b>Runs</b> (newest first)</div>")
            + f"<pre style='max-height:{LOG_HEIGHT}; overflow:auto; white-space:pre; margin:0; padding:4px; "
            f"{SCROLLS_INSIDE} "
            f"font-size:11px; border:1px solid #ccc'>{body}</pre>"
        )

    def _show_png(self, fig: Figure) -> None:
        show_figure(self.plot_output, fig, _("inference explorer figure"))


def draw_runs(runs: Sequence[Run]) -> Figure:
    """Saved-activation memory (left) and forward time (right) per run, coloured by tracking mode;
    circles are train-mode runs, squares eval-mode runs; small numbers give the batch size."""
    fig = Figure(figsize=FIGSIZE, layout="constrained")
    ax_mem, ax_time = fig.subplots(1, 2)
    for ax, values, title, unit in (
        (ax_mem, [r.saved_bytes / 1e6 for r in runs], _("memory saved for backward"), "MB"),
        (ax_time, [r.seconds * 1e3 for r in runs], _("time of the forward pass"), "ms"),
    ):
        xs = [r.index for r in runs]
        if runs:
            ax.plot(xs, values, color="#bbbbbb", linewidth=1, zorder=1)
        for run, value in zip(runs, values):
            ax.scatter(run.index, value, color=COLORS[run.tracking], marker=MARKERS[run.eval_mode], s=42, zorder=3)
        if len(runs) <= MAX_ANNOTATED:
            for run, value in zip(runs, values):
                ax.annotate(
                    str(run.batch_size), (run.index, value), textcoords="offset points", xytext=(0, 6),
                    ha="center", fontsize=7, color="#444444",
                )  # fmt: skip
        ax.set_title(title, fontsize=10)
        # i18n: x axis label: the run number
        ax.set_xlabel(_("run"), fontsize=9)
        ax.set_ylabel(unit, fontsize=9)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        # From 0 (what no graph saves) to the largest run, with room for whole markers at both ends
        # and for the batch size written above the highest one; no tick below 0 MB or 0 ms.
        bottom, top = padded_range(values, include=(0.0,), above=0.2)
        ticks = MaxNLocator(nbins=5).tick_values(0.0, top)
        ax.set_yticks([t for t in ticks if 0.0 <= t <= top])
        ax.set_ylim(bottom, top)
        ax.set_xlim(padded_range(xs, include=(1, 5), below=0.12, above=0.12))
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    handles = [Line2D([], [], color=c, marker="o", linestyle="", label=_(LEGEND[k])) for k, c in COLORS.items()]
    handles += [
        Line2D([], [], color="#555555", marker="o", linestyle="", markerfacecolor="white", label=_("train mode")),
        Line2D([], [], color="#555555", marker="s", linestyle="", markerfacecolor="white", label=_("eval mode")),
    ]
    # Two rows: five entries side by side are wider than the figure beside the guide, which cut them off.
    fig.legend(handles=handles, loc="outside upper center", ncol=3, fontsize=7.5, frameon=False)
    return fig
