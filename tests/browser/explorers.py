"""Helpers shared by the explorer tests (one file per lesson: test_lessonN_*_explorer.py): open a
lesson's source notebook, run only the explorer's cell, and find its controls."""

from __future__ import annotations

import os
import shutil

from playwright.sync_api import Locator

from tests.browser.lab import CELL_MS, screenshot


def open_explorer(lab, assignment: str, class_name: str) -> tuple[Locator, Locator]:
    """In a 1366×768 window, open the lesson's source notebook and run the explorer's cell only;
    returns (cell, widget)."""
    use_a_laptop_window(lab)
    notebook = lab.open_notebook(f"notebooks/{assignment}/{assignment}.ipynb")
    cell = notebook.run_cell(notebook.index(contains=f"{class_name}()"))
    widget = cell.locator(".jp-Cell-outputArea .widget-vbox").first
    widget.locator(".widget-output img").wait_for(timeout=CELL_MS)
    assert notebook.problems() == []
    return cell, widget


def button(widget: Locator, text: str) -> Locator:
    return widget.get_by_role("button", name=text, exact=True)


def checkbox(widget: Locator, description: str) -> Locator:
    return widget.locator(".widget-checkbox", has_text=description).locator("input[type=checkbox]")


def dropdown(widget: Locator, description: str) -> Locator:
    return widget.locator(f".widget-dropdown:has(label:text-is('{description}')) select")


def html_part(widget: Locator, text: str) -> Locator:
    """The ``HTML`` widget of the explorer that contains ``text`` (e.g. its log's title)."""
    return widget.locator(".widget-html", has_text=text)


# --------------------------------------------------------------------------- fitting a laptop

#: A laptop's window (issue 35): every explorer must be seen whole in it, with JupyterLab's own chrome.
LAPTOP = {"width": 1366, "height": 768}
#: The widest empty band allowed between the guide's text and the controls under it.
MAX_GAP_PX = 16
#: A folder to copy the screenshots into as well, if it exists (a maintainer's, for an issue's closing note).
SCREENSHOTS = os.environ.get("EXPLORER_SCREENSHOTS", "/work/screenshots/explorers")

# Scrolls the explorer to the top of the notebook's scrolling panel, then measures (in CSS pixels) the
# explorer, the part of the panel that shows cells, and the empty bands in it: between the guide's
# painted panel and its buttons, and between one row of the explorer and the next.
_FIT_JS = """widget => {
    const panel = widget.closest('.jp-WindowedPanel-outer') || widget.closest('.jp-Notebook');
    widget.scrollIntoView({block: 'start'});
    const box = widget.getBoundingClientRect();
    const view = panel.getBoundingClientRect();
    const guide = widget.querySelector('.explorer-guide');
    const painted = (guide.querySelector('.widget-html-content > div') || guide).getBoundingClientRect();
    const buttons = [...guide.parentElement.querySelectorAll('button')].map(b => b.getBoundingClientRect());
    const bands = [Math.min(...buttons.map(b => b.top)) - painted.bottom];
    const rows = [...widget.children].map(c => c.getBoundingClientRect()).filter(r => r.height > 0);
    for (let i = 1; i < rows.length; i++) bands.push(rows[i].top - rows[i - 1].bottom);
    // a log or table wider than the explorer must scroll inside its own box, not run past its right edge
    const past = [...widget.querySelectorAll('pre, table')].map(e => e.getBoundingClientRect().right - box.right);
    return {height: box.height, top: box.top, bottom: box.bottom, panel_top: view.top,
            panel_bottom: view.bottom, panel_height: panel.clientHeight, gap: Math.max(...bands),
            past_right: Math.max(0, ...past)};
}"""


def use_a_laptop_window(lab) -> None:
    """Make the test's page the size of a 1366×768 laptop window."""
    lab.page.set_viewport_size(LAPTOP)


def assert_fits_a_laptop(lab, widget: Locator, name: str) -> dict:
    """The explorer, scrolled to its top, is seen whole in a 1366×768 window and has no blank band
    between its guide and its controls. A screenshot of the window is saved (its path printed)."""
    assert lab.page.viewport_size == LAPTOP, "open the explorer with open_explorer (it sets the window's size)"
    fit = widget.evaluate(_FIT_JS)
    path = screenshot(lab.page, f"{name}-1366x768")
    if os.path.isdir(SCREENSHOTS):  # never made here: a CI machine keeps its screenshots in test-artifacts/
        shutil.copy(path, SCREENSHOTS)
    print(
        f"\n{name}: explorer {fit['height']:.0f} px tall in a panel of {fit['panel_height']:.0f} px, "
        f"widest blank band {fit['gap']:.0f} px; screenshot {path}"
    )
    assert fit["top"] >= fit["panel_top"] - 1 and fit["bottom"] <= fit["panel_bottom"] + 1, (
        f"{name}: the explorer ({fit['height']:.0f} px) does not fit the notebook's visible "
        f"{fit['panel_height']:.0f} px at 1366×768: {fit}"
    )
    assert fit["gap"] < MAX_GAP_PX, f"{name}: a blank band of {fit['gap']:.0f} px between the guide and the controls"
    assert fit["past_right"] <= 1, (
        f"{name}: a log or table runs {fit['past_right']:.0f} px past the explorer's right edge"
    )
    return fit
