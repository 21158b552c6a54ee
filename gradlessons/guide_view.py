"""The guide's box in every explorer: its text, then ``skip step`` and ``restart guide``, in a column
beside the explorer's figure.

One look for the four explorers: the same two buttons in the same (default) style, under a text panel
that fills the column. Beside the figure (:func:`beside_the_figure`), the guide takes no height of its
own: an explorer fits a laptop's window (1366×768 in JupyterLab), what to look at is next to what is
drawn, and no control moves when a note comes or goes, since the row's height is the figure's. Above
the controls, a text area of fixed height left a blank band under every short note; one that follows
its text moved the controls under the student's pointer between two clicks. A note longer than the
figure scrolls inside the panel. Where the page is narrower than figure and column (Colab's side
panel), the column wraps under the figure. Only core layout properties are used (no CSS of the
course's own), so Colab shows it the same. The text comes from :class:`gradlessons.guide.Guide`; this
module only shows it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass

import ipywidgets as widgets

from gradlessons.guide import RESTART, SKIP, Guide
from gradlessons.i18n import _

#: Style for an explorer's log (a <pre> of long lines): it scrolls sideways inside its own box.  Without it
#: the box is as wide as its longest line, and the HTML widget holding it grows past the explorer's right
#: edge (a flex item is never narrower than its content); width 0 gives it no width of its own to claim,
#: and min-width 100% then makes it exactly as wide as the explorer.
SCROLLS_INSIDE = "width:0; min-width:100%; box-sizing:border-box;"
#: The guide's column beside the figure: its width to start from (it takes what the row leaves), and
#: the narrowest it may get before it wraps under the figure.
GUIDE_WIDTH = "260px"
GUIDE_MIN_WIDTH = "220px"
#: The panel fills its column (min-height), so a short note leaves no blank band under it.
BOX_STYLE = (
    "border-left:4px solid #1f77b4; background:#f3f7fb; padding:6px 10px; line-height:1.45; "
    "min-height:100%; box-sizing:border-box"
)
NOTE_STYLE = "color:#1a5e20"
OFF_SCRIPT_STYLE = "color:#8a4b00"


@dataclass
class GuideControls:
    """The guide's widgets: ``text`` (HTML), ``buttons`` (``"skip"`` and ``"restart"``) and ``box`` (both)."""

    text: widgets.HTML
    buttons: dict[str, widgets.Button]
    box: widgets.VBox

    def show(self, guide: Guide) -> None:
        self.text.value = guide_html(guide)
        self.buttons["skip"].disabled = guide.finished


def labels() -> dict[str, str]:
    """The guide's button labels in today's language (``"skip"``, ``"restart"``): what a test clicks."""
    return {"skip": _(SKIP), "restart": _(RESTART)}


def guide_controls(on_skip: Callable[[], None], on_restart: Callable[[], None], restart_tip: str) -> GuideControls:
    text = widgets.HTML(layout=widgets.Layout(flex="1 1 auto", overflow="auto", width="auto", align_self="stretch"))
    text.add_class("explorer-guide")  # lets a page (and the browser tests) find the guide
    layout = widgets.Layout(width="auto", margin="2px 4px 2px 0px")
    label = labels()
    buttons = {
        "skip": widgets.Button(description=label["skip"], tooltip=_("Go to the guide's next step"), layout=layout),
        "restart": widgets.Button(description=label["restart"], tooltip=restart_tip, layout=layout),
    }
    buttons["skip"].on_click(lambda _button: on_skip())
    buttons["restart"].on_click(lambda _button: on_restart())
    box = widgets.VBox(
        [text, widgets.HBox(list(buttons.values()), layout=widgets.Layout(flex="0 0 auto"))],
        layout=widgets.Layout(flex=f"1 1 {GUIDE_WIDTH}", min_width=GUIDE_MIN_WIDTH, margin="0px 0px 0px 8px"),
    )
    return GuideControls(text, buttons, box)


def beside_the_figure(figure: widgets.Output, guide: GuideControls, height: float) -> widgets.HBox:
    """The explorer's figure with the guide's column at its right, as tall as the figure.

    Args:
        figure: the ``Output`` that shows the figure (its PNG is ``height`` pixels tall).
        guide: the guide's widgets; its column is capped at the figure's height, so that a long note
            scrolls inside the panel rather than making the explorer taller.
        height: the figure's height in CSS pixels.
    """
    figure.layout.flex = "0 1 auto"
    guide.box.layout.max_height = f"{height:.0f}px"
    return widgets.HBox([figure, guide.box], layout=widgets.Layout(flex_flow="row wrap", align_items="stretch"))


def inline(text: str) -> str:
    """Plain guide text as HTML: `code` and **bold**, everything else escaped."""
    text = html.escape(text, quote=False)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", text)


def guide_html(guide: Guide) -> str:
    """The note about the latest action (what the step just done showed), then the current step."""
    parts = []
    if guide.note:
        style = NOTE_STYLE if guide.note.startswith("✓") else OFF_SCRIPT_STYLE
        parts.append(f"<div style='{style}'>{inline(guide.note)}</div>")
    # i18n: the title of the explorer's guide panel, before "Step 1 of 4"
    title = html.escape(_("Guide"))
    parts.append(f"<div><b>{title} &middot; {html.escape(guide.heading)}:</b> {inline(guide.prompt)}</div>")
    return f"<div style='{BOX_STYLE}'>{''.join(parts)}</div>"
