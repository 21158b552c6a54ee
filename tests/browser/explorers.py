"""Helpers shared by the explorer tests (one file per lesson: test_lessonN_*_explorer.py): open a
lesson's source notebook, run only the explorer's cell, and find its controls."""

from __future__ import annotations

from playwright.sync_api import Locator

from tests.browser.lab import CELL_MS


def open_explorer(lab, assignment: str, class_name: str) -> tuple[Locator, Locator]:
    """Open the lesson's source notebook, run the explorer's cell only; returns (cell, widget)."""
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
