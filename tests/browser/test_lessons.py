"""Each lesson, opened in JupyterLab in a real browser, runs from top to bottom (Run → Run All Cells)
without an error, without text on stderr and without a JavaScript error, and its explorer renders."""

import pytest

from tests.browser.lab import RUN_ALL_MS, kernel_log_count
from tests.conftest import LESSONS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The explorer each lesson shows: the class its notebook displays.
EXPLORERS = {
    "lesson1_requires_grad": "GraphExplorer",
    "lesson2_backward": "TangentExplorer",
    "lesson3_zeroing_grad": "GradExplorer",
    "lesson4_no_grad": "InferenceExplorer",
}


def test_every_lesson_has_an_explorer():
    assert sorted(EXPLORERS) == sorted(LESSONS)


# The English lessons; the Portuguese editions are built from them, and lesson 3's runs in a Portuguese
# JupyterLab in test_lessons_pt.py.
@pytest.mark.parametrize("assignment", LESSONS)
def test_lesson_runs_in_jupyterlab(lab, assignment):
    notebook = lab.open_notebook(f"notebooks/{assignment}/{assignment}.ipynb")
    notebook.run_all()

    assert notebook.problems() == [], "error or stderr output after Run All Cells"
    cells = [cell for cell in notebook.cells() if cell["code"]]
    assert len(cells) == notebook.code_cell_count()
    not_run = [
        (i, cell["prompt"], cell["source"][:80]) for i, cell in enumerate(cells) if not cell["prompt"][1:-2].isdigit()
    ]
    assert not_run == [], "code cells without an execution count"
    counts = [int(cell["prompt"][1:-2]) for cell in cells]
    assert counts == list(range(1, len(cells) + 1)), "the cells did not run once each, in order"
    indicator = lab.page.locator(".jp-NotebookPanel .jp-Notebook-ExecutionIndicator")
    assert indicator.get_attribute("data-status") == "idle"

    # The explorer rendered as live widgets (not as the text fallback of an unrendered widget).
    explorer = notebook.cell(notebook.index(contains=f"{EXPLORERS[assignment]}()"))
    widget = explorer.locator(".jp-Cell-outputArea .widget-vbox").first
    widget.wait_for(timeout=RUN_ALL_MS)
    assert widget.locator("button.jupyter-button").count() >= 2
    assert widget.locator(".widget-output img").count() == 1
    assert "Error displaying widget" not in (lab.page.locator(".jp-Notebook").text_content() or "")
    assert lab.page.locator(".jp-Notebook .jp-Cell-outputArea :text('Loading widget...')").count() == 0
    assert kernel_log_count(lab.page) == 0, "output that belongs to no cell went to the log console"
    lab.assert_no_javascript_errors()
