"""The Portuguese edition in a Portuguese JupyterLab (the language pack, chosen in the user settings as
`course.py lab --lang pt_BR` does): lesson 3 runs from top to bottom from the Portuguese menus, its
gradient explorer shows the catalogue's Portuguese labels and guide and still fits a laptop window, and a
train_step that never clears gets its diagnosis in Portuguese, with the same code as in English.

The labels and texts the test looks for come from the catalogues (``labels()``, the guide's steps, the
autograder's words), read in this process under ``speaking("pt_BR")``: nothing Portuguese is written
here, so a changed translation changes what is expected with it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from autograder.i18n import speaking
from tests.browser.explorers import assert_fits_a_laptop, button, use_a_laptop_window
from tests.browser.lab import RUN_ALL_MS, LabServer, img_src, kernel_log_count, screenshot, serving
from tests.course_copy import NEVER_CLEARS, copy_working_tree

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = "lesson3_zeroing_grad_pt_br"
PORTUGUESE = {"@jupyterlab/translation-extension/plugin": {"locale": "pt_BR"}}


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    """This module's own JupyterLab, in Portuguese (the `lab` fixture of conftest.py uses it)."""
    root = copy_working_tree(str(tmp_path_factory.mktemp("course-pt")))
    yield from serving(LabServer(root=root, home=str(tmp_path_factory.mktemp("jupyter-home-pt")), settings=PORTUGUESE))


def portuguese() -> dict:
    """What the page should show, from the catalogues."""
    from autograder.i18n import _ as autograder_text
    from gradebox.display import NOT_PASSED
    from gradlessons.gradient_explorer.state import GradExplorerState
    from gradlessons.gradient_explorer.view import labels

    with speaking("pt_BR"):
        steps = [step.prompt for step in GradExplorerState().guide.steps]
        return {"labels": labels(), "steps": steps, "not_passed": autograder_text(NOT_PASSED)}


def plain(text: str) -> str:
    """A prompt as the page shows it: code spans and bold drawn, not written."""
    return re.sub(r"[`*]", "", text)


def label(page, portuguese: str, english: str, selector: str) -> str:
    """The label the page shows: the language pack's Portuguese, or the English it has no translation for
    (the pack, 4.5, is a minor version behind JupyterLab 4.6: its main menu titles come out English)."""
    found = page.locator(f"{selector}:text-is('{portuguese}')")
    return portuguese if found.count() else english


def run_all_in_portuguese(page) -> None:
    top = label(page, "Executar", "Run", "div.lm-MenuBar-itemLabel")
    page.locator(f"div.lm-MenuBar-itemLabel:text-is('{top}')").click()
    item = label(page, "Executar todas as células", "Run All Cells", ".lm-Menu div.lm-Menu-itemLabel")
    page.locator(f".lm-Menu div.lm-Menu-itemLabel:text-is('{item}')").click()


def test_the_portuguese_lesson_runs_in_a_portuguese_jupyterlab_and_its_explorer_speaks_portuguese(lab):
    expected = portuguese()
    assert expected["labels"]["reset"] != "reset (start over)", "the gradlessons catalogue is compiled"
    use_a_laptop_window(lab)
    notebook = lab.open_notebook(f"notebooks/{LESSON}/{LESSON}.ipynb")
    # JupyterLab speaks Portuguese: its file browser and status bar come from the language pack
    expect(lab.page.locator(".jp-DirListing-headerItem").filter(has_text=re.compile(r"^\s*Nome"))).to_have_count(1)
    run_all_in_portuguese(lab.page)
    notebook.wait_until_settled(RUN_ALL_MS)
    assert notebook.problems() == [], "error or stderr output after Executar todas as células"

    explorer = notebook.cell(notebook.index(contains="GradExplorer()"))
    widget = explorer.locator(".jp-Cell-outputArea .widget-vbox").first
    widget.locator(".widget-output img").wait_for(timeout=RUN_ALL_MS)
    for name in ("reset", "skip", "restart"):
        expect(button(widget, expected["labels"][name])).to_have_count(1)
    guide = widget.locator(".widget-html").filter(has_text=plain(expected["steps"][0])[:40])
    expect(guide).to_have_count(1)
    plot = widget.locator(".widget-output")
    src = img_src(plot)
    for _click in range(3):
        button(widget, "loss.backward()").click()
    expect(widget).to_contain_text(plain(expected["steps"][1])[:40])
    assert img_src(plot) != src
    screenshot(explorer, f"{LESSON}-guide-2")
    assert_fits_a_laptop(lab, widget, LESSON)
    assert kernel_log_count(lab.page) == 0, "a widget callback wrote to the log console (an exception?)"
    lab.assert_no_javascript_errors()


def test_a_train_step_that_never_clears_is_diagnosed_in_portuguese(lab):
    expected = portuguese()
    notebook = lab.open_notebook(f"notebooks/{LESSON}/{LESSON}.ipynb")
    answer = notebook.index(grade_id_is="train_step")
    notebook.set_source(answer, NEVER_CLEARS)
    run_all_in_portuguese(lab.page)  # stops at the test cell that fails
    notebook.wait_until_settled(RUN_ALL_MS)
    outputs = notebook.cell(notebook.index(grade_id_is="test_train_step")).locator(".jp-Cell-outputArea")
    outputs.scroll_into_view_if_needed()
    expect(outputs).to_contain_text("never_clears")  # the code: the same in every language
    expect(outputs).to_contain_text(expected["not_passed"])
    assert "not passed yet" not in outputs.inner_text()
    screenshot(outputs, f"{LESSON}-never-clears")
    lab.assert_no_javascript_errors()
