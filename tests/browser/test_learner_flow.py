"""A learner's first contact with the checks, in lessons 1 and 3: a notebook that opens unmodified, then
a wrong quick-check answer and a wrong exercise, each failing its test cell with the ❌ line and the hint
once and no traceback of the grader, then the right ones passing.

"The cell still counts as failed" is read from the saved notebook: an error output is what nbgrader's
autograde scores 0 (``tests/e2e/test_nbgrader_roundtrip.py`` checks that scoring itself)."""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest
from playwright.sync_api import expect

from autograder.checks import FAILED_LINE, load_quiz
from tests.browser.lab import STDERR, screenshot
from tests.conftest import ROOT
from tests.course_copy import NEVER_CLEARS, read, solutions

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GRADER_WORDS = ("checks.py", "Traceback", "NotYet", "AssertionError")
WRONG_GRAPH_OPS = "def graph_ops(t):\n    return [type(t.grad_fn).__name__]\n"
EXERCISE = {"lesson1_requires_grad": "graph_ops", "lesson3_zeroing_grad": "train_step"}
WRONG = {"graph_ops": WRONG_GRAPH_OPS, "train_step": NEVER_CLEARS}


def _student_copy(lab_server, assignment: str) -> str:
    path = f"learner/{assignment}.ipynb"
    target = os.path.join(lab_server.root, path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(os.path.join(lab_server.root, "release", assignment, f"{assignment}.ipynb"), target)
    return path


def _assert_no_grader_traceback(text: str) -> None:
    for word in GRADER_WORDS:
        assert word not in text, f"{word!r} shown to the learner:\n{text}"


def _saved_outputs(notebook, lab_server, index: int) -> list[dict]:
    """The cell's outputs as JupyterLab saves them (Ctrl+S), i.e. what nbgrader would grade."""
    notebook.page.keyboard.press("Escape")
    notebook.page.keyboard.press("Control+s")
    tab = notebook.page.locator(".lm-TabBar-tab.jp-mod-current")
    expect(tab).not_to_have_class(re.compile(r"\bjp-mod-dirty\b"))
    return read(os.path.join(lab_server.root, notebook.path))["cells"][index]["outputs"]


@pytest.mark.parametrize("assignment", sorted(EXERCISE))
def test_fail_then_pass_no_traceback(lab, lab_server, assignment):
    answers = solutions(read(os.path.join(ROOT, "notebooks", assignment, f"{assignment}.ipynb")))
    notebook = lab.open_notebook(_student_copy(lab_server, assignment))

    # Opened, kernel started, nothing typed: the tab must not say "unsaved".
    tab = lab.page.locator(".lm-TabBar-tab", has_text=f"{assignment}.ipynb")
    expect(tab).to_have_count(1)
    assert "jp-mod-dirty" not in (tab.get_attribute("class") or ""), "a freshly opened notebook is marked modified"
    screenshot(lab.page, f"{assignment}_learner_opened_clean")

    answer, check = notebook.index(grade_id_is="quiz_q1"), notebook.index(grade_id_is="test_quiz_q1")
    notebook.run_all_above(answer)
    item = load_quiz(assignment)["q1"]
    right = re.search(r'"([a-z])"', answers["quiz_q1"]).group(1)
    wrong = next(c for c in item["choices"] if c != right)

    # A wrong quick-check answer: the ❌ line and the hint once, one plain line, no traceback.
    notebook.set_source(answer, f'q1 = "{wrong}"')
    notebook.run_cell(answer)
    notebook.run_cell(check)
    output = notebook.cell(check).locator(".jp-Cell-outputArea")
    expect(output).to_contain_text("❌ q1")
    expect(output.locator(STDERR)).to_have_text(FAILED_LINE)
    text = notebook.output_text(check)
    assert " ".join(text.split()).count(" ".join(item["hint"].split())) == 1  # wrapped between words
    _assert_no_grader_traceback(text)
    screenshot(notebook.cell(check), f"{assignment}_learner_quiz_wrong")
    saved = _saved_outputs(notebook, lab_server, check)
    assert [o["output_type"] for o in saved].count("error") == 1  # the cell still fails for nbgrader

    notebook.set_source(answer, f'q1 = "{right}"')
    notebook.run_cell(answer)
    notebook.run_cell(check)
    expect(output).to_contain_text("✅ q1")
    expect(output.locator(STDERR)).to_have_count(0)

    # A wrong exercise, then the instructor's answer.
    name = EXERCISE[assignment]
    solution, test = notebook.index(grade_id_is=name), notebook.index(grade_id_is=f"test_{name}")
    notebook.set_source(solution, WRONG[name])
    notebook.run_cell(solution)
    notebook.run_cell(test)
    output = notebook.cell(test).locator(".jp-Cell-outputArea")
    expect(output).to_contain_text(f"❌ {name} [")
    expect(output.locator(STDERR)).to_have_text(FAILED_LINE)
    text = notebook.output_text(test)
    _assert_no_grader_traceback(text)
    assert text.count("❌") == 1
    screenshot(notebook.cell(test), f"{assignment}_learner_exercise_wrong")
    saved = _saved_outputs(notebook, lab_server, test)
    errors = [o for o in saved if o["output_type"] == "error"]
    assert len(errors) == 1 and errors[0]["traceback"] == [FAILED_LINE]

    notebook.set_source(solution, answers[name])
    notebook.run_cell(solution)
    notebook.run_cell(test)
    expect(output).to_contain_text(f"✅ {name}:")
    expect(output.locator(STDERR)).to_have_count(0)
    if name == "train_step":  # the clean-start pass points to the dirty-start cell below
        expect(output).to_contain_text("now run the next cell, which starts from stale gradients")
    screenshot(notebook.cell(test), f"{assignment}_learner_exercise_passed")
    assert json.dumps(_saved_outputs(notebook, lab_server, test)).count('"error"') == 0
    lab.assert_no_javascript_errors()
