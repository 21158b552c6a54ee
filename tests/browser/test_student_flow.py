"""A student's path through the lesson 3 exercise in JupyterLab: the released notebook, a train_step with
a classic zero_grad mistake typed into the answer cell, the self-check naming the mistake, then the fix
and the self-check passing."""

from __future__ import annotations

import os
import shutil

import pytest
from playwright.sync_api import expect

from tests.browser.lab import STDERR, screenshot
from tests.course_copy import CLEARS_AFTER_STEP, CORRECT_TRAIN_STEP, NEVER_CLEARS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ASSIGNMENT = "lesson3_zeroing_grad"


@pytest.fixture
def student_notebook(lab_server) -> str:
    """The released lesson 3, copied into a student folder of the course copy (as `course.py lab` does)."""
    path = f"student/{ASSIGNMENT}.ipynb"
    target = os.path.join(lab_server.root, path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(os.path.join(lab_server.root, "release", ASSIGNMENT, f"{ASSIGNMENT}.ipynb"), target)
    return path


def test_mistake_named_then_fix_passes(lab, student_notebook):
    notebook = lab.open_notebook(student_notebook)
    answer = notebook.index(grade_id_is="train_step")
    fresh = notebook.index(grade_id_is="test_train_step")
    dirty = notebook.index(grade_id_is="test_train_step_dirty_start")
    try_it = notebook.index(contains="train_step(toy_model, toy_opt")
    assert "raise NotImplementedError()" in notebook.source(answer)

    # The lesson up to the quiz (the quiz's unanswered cells would stop "Run All" there); the quiz is
    # skipped: the exercise does not depend on it.
    notebook.run_all_above(notebook.index(grade_id_is="quiz_q1"))
    assert notebook.problems() == []

    # Mistake 1: gradients are never cleared.
    notebook.set_source(answer, NEVER_CLEARS)
    notebook.run_cell(answer)
    assert notebook.output_text(answer).strip() == ""
    notebook.run_cell(fresh)
    expect(notebook.cell(fresh).locator(".jp-Cell-outputArea")).to_contain_text("❌ train_step [never_clears]:")
    expect(notebook.cell(fresh).locator(".jp-Cell-outputArea")).to_contain_text("optimizer.zero_grad()")
    screenshot(notebook.cell(fresh), "lesson3_student_never_clears")

    # Mistake 2: clearing after step() passes a fresh start, but stale gradients leak into the first update.
    notebook.set_source(answer, CLEARS_AFTER_STEP)
    notebook.run_cell(answer)
    notebook.run_cell(fresh)
    expect(notebook.cell(fresh).locator(".jp-Cell-outputArea")).to_contain_text("✅ train_step:")
    notebook.run_cell(dirty)
    expect(notebook.cell(dirty).locator(".jp-Cell-outputArea")).to_contain_text("❌ train_step [clears_after_step]:")

    # The fix: zero_grad, forward, loss, backward, step; both checks pass, nothing on stderr.
    notebook.set_source(answer, CORRECT_TRAIN_STEP)
    notebook.run_cell(answer)
    notebook.run_cell(try_it)
    expect(notebook.cell(try_it).locator(".jp-Cell-outputArea")).to_contain_text("step 4: loss")
    assert notebook.output_text(try_it).count("(type: float)") == 5
    for check in (fresh, dirty):
        notebook.run_cell(check)
        output = notebook.cell(check).locator(".jp-Cell-outputArea")
        expect(output).to_contain_text("✅ train_step:")
        expect(output.locator(STDERR)).to_have_count(0)
        assert "❌" not in output.inner_text()
    screenshot(notebook.cell(dirty), "lesson3_student_fixed")
    lab.assert_no_javascript_errors()
