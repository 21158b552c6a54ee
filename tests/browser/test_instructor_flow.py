"""nbgrader's JupyterLab extension works on this course: the notebook toolbar's Validate button passes
a source notebook and fails the unanswered student version, and the formgrader lists the assignments."""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import expect

from tests.browser.lab import DIALOG_MS, LOAD_MS, menu, screenshot
from tests.conftest import ASSIGNMENTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ASSIGNMENT = "lesson3_zeroing_grad"


def validate(lab, path: str):
    """Open the notebook, click the toolbar's Validate button; returns the results dialog's body."""
    lab.open_notebook(path)
    lab.page.locator(".jp-NotebookPanel-toolbar .validate-button").click()
    dialog = lab.page.locator(".jp-Dialog")
    expect(dialog.locator(".jp-Dialog-header")).to_have_text("Validation Results", timeout=DIALOG_MS)
    return dialog.locator("#validation-message")


def test_validate_passes_source(lab):
    message = validate(lab, f"notebooks/{ASSIGNMENT}/{ASSIGNMENT}.ipynb")
    expect(message).to_have_text("Success! Your notebook passes all the tests.")
    expect(message).to_have_class(re.compile(r"\bvalidation-success\b"))
    screenshot(lab.page, "nbgrader_validate_source")
    lab.page.locator(".jp-Dialog button.jp-mod-accept").click()
    expect(lab.page.locator(".jp-Dialog")).to_have_count(0)
    lab.assert_no_javascript_errors()


def test_validate_fails_unanswered(lab):
    message = validate(lab, f"release/{ASSIGNMENT}/{ASSIGNMENT}.ipynb")
    expect(message).to_have_class(re.compile(r"\bvalidation-failed\b"))
    text = message.inner_text()
    assert "Success" not in text
    # Every graded test cell fails while its answer is missing (the quick checks are not graded).
    assert "check_train_step(train_step)" in text
    assert "check_manual_sgd_step(manual_sgd_step)" in text
    assert text.count("The following cell failed:") >= 5
    lab.page.locator(".jp-Dialog button.jp-mod-accept").click()
    lab.assert_no_javascript_errors()


def test_formgrader_lists_assignments(lab):
    lab.page.goto(lab.server.url(), timeout=LOAD_MS)
    menu(lab.page, "Nbgrader", "Formgrader")
    formgrader = lab.page.frame_locator("iframe[src*='formgrader']")
    names = formgrader.locator("#main-table td.name")
    expect(names).to_have_count(len(ASSIGNMENTS), timeout=LOAD_MS)
    assert sorted(names.all_inner_texts()) == sorted(ASSIGNMENTS)
    expect(formgrader.get_by_role("heading", name="Manage Assignments")).to_be_visible()
    # nbgrader's course root is the copy the server serves: its gradebook is there, not in the repository.
    assert os.path.isfile(os.path.join(lab.server.root, "gradebook.db"))
    screenshot(lab.page, "nbgrader_formgrader")
    lab.assert_no_javascript_errors()
