"""The guide's box in every explorer: its text, then ``skip step`` and ``restart guide``.

One look for the four explorers: the same two buttons in the same (default) style, and a text area of
fixed height that scrolls if a note is long, so that the buttons under it do not move between clicks
as the text changes. The text comes from :class:`gradlessons.guide.Guide`; this module only shows it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass

import ipywidgets as widgets

from gradlessons.guide import RESTART, SKIP, Guide

#: Tall enough for a step, its ✓ note and an off-script word at the explorers' width; the same in all four.
GUIDE_HEIGHT = "9em"
BOX_STYLE = "border-left:4px solid #1f77b4; background:#f3f7fb; padding:6px 10px; line-height:1.45"
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


def guide_controls(on_skip: Callable[[], None], on_restart: Callable[[], None], restart_tip: str) -> GuideControls:
    text = widgets.HTML(layout=widgets.Layout(height=GUIDE_HEIGHT, overflow="auto", width="auto", align_self="stretch"))
    text.add_class("explorer-guide")  # lets a page (and the browser tests) find the guide
    layout = widgets.Layout(width="auto", margin="2px 4px 2px 0px")
    buttons = {
        "skip": widgets.Button(description=SKIP, tooltip="Go to the guide's next step", layout=layout),
        "restart": widgets.Button(description=RESTART, tooltip=restart_tip, layout=layout),
    }
    buttons["skip"].on_click(lambda _button: on_skip())
    buttons["restart"].on_click(lambda _button: on_restart())
    box = widgets.VBox([text, widgets.HBox(list(buttons.values()))])
    return GuideControls(text, buttons, box)


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
    parts.append(f"<div><b>Guide &middot; {html.escape(guide.heading)}:</b> {inline(guide.prompt)}</div>")
    return f"<div style='{BOX_STYLE}'>{''.join(parts)}</div>"
