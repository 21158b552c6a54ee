"""Issue 22's class of eight, graded by `python -m autograder grade`, reported and given feedback, and
both pages opened in Chromium: the report sorts what to teach (misconceptions, with the section to read
again) from what to check (answers not judged, each with its reason, no advice); a feedback page opens
with a summary of each exercise and shows each verdict once, wrapped, fix first.

The class (``tests.course_copy.class_of_eight``): two correct students, one who clears after the step,
one who never clears, one who clears every micro-batch, a blank notebook, a syntax error, and a correct
student whose 50 MB debug print stops the notebook at the output limit.  Screenshots of the report and
of two feedback pages go to test-artifacts/browser/.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.browser.lab import screenshot
from tests.conftest import requires_bwrap
from tests.course_copy import class_of_eight, read, solutions, write

pytestmark = [pytest.mark.browser, pytest.mark.slow, requires_bwrap]

LESSON = "lesson3_zeroing_grad"
LAPTOP = {"width": 1366, "height": 768}  # what an instructor or a student reads these pages in
MISCONCEPTIONS = {"cai": "clears_after_step", "dee": "never_clears", "eve": "clears_every_micro_batch"}


def _run(course: str, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(command), cwd=course, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def graded_class_of_eight(tmp_path_factory, released):
    course = released(str(tmp_path_factory.mktemp("class-of-eight")), LESSON)
    source = read(os.path.join(course, "notebooks", LESSON, f"{LESSON}.ipynb"))
    release = read(os.path.join(course, "release", LESSON, f"{LESSON}.ipynb"))
    for student, nb in class_of_eight(release, solutions(source)).items():
        write(os.path.join(course, "submitted", student, LESSON, f"{LESSON}.ipynb"), nb)
    grade = _run(course, sys.executable, "-m", "autograder", "grade", LESSON)
    report = _run(course, sys.executable, "-m", "autograder", "report", LESSON)
    feedback = _run(course, "nbgrader", "generate_feedback", LESSON)
    assert feedback.returncode == 0, feedback.stderr[-3000:]
    assert "Alternative text is missing" not in feedback.stdout + feedback.stderr  # each figure has its alt
    # gus's cells were never run, so a message names his train_step cell by its place in his notebook,
    # counted from the top with the Markdown cells, as he would count them (autograder/grading/cell_label.py)
    place = next(
        i for i, c in enumerate(release["cells"]) if c["metadata"].get("nbgrader", {}).get("grade_id") == "train_step"
    )
    seen_as = f"cell {place + 1} of your notebook"
    return {"course": course, "grade": grade, "report": report, "feedback": feedback, "seen_as": seen_as}


def _page(course: str, student: str | None = None) -> str:
    if student is None:
        return os.path.join(course, "reports", f"{LESSON}.html")
    return os.path.join(course, "feedback", student, LESSON, f"{LESSON}.html")


def test_grade_ends_with_a_table(graded_class_of_eight):
    run = graded_class_of_eight["grade"]
    assert run.returncode == 0, run.stderr[-3000:]
    table = run.stdout[run.stdout.index("student  score") :]
    rows = {line.split()[0]: line for line in table.splitlines()[1:] if line.strip()}
    assert set(rows) == {"ada", "ben", "cai", "dee", "eve", "fay", "gus", "hal"}
    assert "9/9" in rows["ada"] and "never_clears" in rows["dee"] and "clears_every_micro_batch" in rows["eve"]
    assert f"error (SyntaxError on line 3 of {graded_class_of_eight['seen_as']})" in rows["gus"], rows["gus"]
    assert "9/9" in rows["hal"] and "needs review" in rows["hal"] and "8 MiB" in rows["hal"]
    assert "needs review" not in rows["ada"]
    # the ETA waits for the warm-up: the first line cannot estimate yet
    assert re.search(r"1/8 graded, \S+ spent, ETA …", run.stderr), run.stderr[-2000:]


def test_report_separates_not_judged(graded_class_of_eight, browser):
    assert graded_class_of_eight["report"].returncode == 0, graded_class_of_eight["report"].stderr
    html = open(_page(graded_class_of_eight["course"]), encoding="utf-8").read()
    teach, judged, scores = html.index("What to teach next"), html.index('id="not-judged"'), html.index("<h2>Scores")
    assert teach < judged < scores
    misconceptions, not_judged = html[teach:judged], html[judged:scores]
    for student, code in MISCONCEPTIONS.items():
        row = re.search(rf"{code}</span>.*?</tr>", misconceptions, re.S)[0]
        assert f"</summary>{student}</details>" in row and "Lesson 3 ›" in row, row
    for code in ("unanswered", "error", "NotRun", "KernelStopped", "SyntaxError"):
        assert code not in misconceptions, code
    # not judged: one line per student and exercise, with the reason, and no re-read advice
    line = r"<tr><td>(\w+)</td><td><code>(\w+)</code></td><td><span[^>]*>(\w+)</span></td><td>(.*?)</td></tr>"
    rows = re.findall(line, not_judged)
    assert {(s, e, c) for s, e, c, _ in rows} == {
        ("fay", "train_step", "unanswered"), ("fay", "train_accumulated", "unanswered"),
        ("fay", "manual_sgd_step", "unanswered"), ("gus", "train_step", "error"),
    }  # fmt: skip
    reasons = {(s, c): r for s, _, c, r in rows}
    assert reasons[("gus", "error")] == f"SyntaxError on line 3 of {graded_class_of_eight['seen_as']}"
    assert "Lesson 3 ›" not in not_judged
    # quick-check answers in a stable order: the letters, then unanswered
    for cell in re.findall(r"<tr><td>q\d</td><td>(.*?)</td></tr>", html, re.S):
        answers = re.findall(r">([^<>:]+?)(?: ✓)?: \d+</span>", cell)
        assert answers == sorted(answers, key=lambda a: (a == "unanswered", a)), answers
    page = browser.new_page(viewport=LAPTOP)
    try:
        page.goto("file://" + _page(graded_class_of_eight["course"]))
        assert page.locator("#not-judged").is_visible()
        screenshot(page, "issue22_report_1366x768")  # the first screen, as the instructor opens it
        screenshot(page.locator("body"), "issue22_report")
    finally:
        page.close()


@pytest.mark.parametrize(("student", "code"), [("dee", "never_clears"), ("gus", "error")])
def test_feedback_opens_with_summary(graded_class_of_eight, browser, student, code):
    html = open(_page(graded_class_of_eight["course"], student), encoding="utf-8").read()
    assert "NotYet" not in html and "Checked by the grader" not in html
    assert "Traceback (most recent call last)" not in html  # every traceback cut to its last line
    assert "answer cell " not in html  # answer cells are named as the student sees them
    page = browser.new_page(viewport=LAPTOP)
    try:
        page.goto("file://" + _page(graded_class_of_eight["course"], student))
        summary = page.locator("table:below(:text('Your results at a glance'))").first
        rows = {
            r.locator("td").nth(0).inner_text(): r.locator("td").all_inner_texts()
            for r in summary.locator("tr:has(td)").all()
        }
        assert list(rows) == ["train_step", "train_accumulated", "manual_sgd_step"]
        assert "not passed yet" in rows["train_step"][1] and rows["train_step"][2] == code
        passed = rows["manual_sgd_step"]
        assert "✅ passed" in passed[1] and "not" not in passed[1] and passed[2] == "ok"
        box = summary.bounding_box()
        assert box["y"] + box["height"] <= LAPTOP["height"]  # read first, on the first screen
        if student == "dee":
            assert "zero_grad()" in rows["train_step"][3]  # the one-line fix
        else:
            seen = f"SyntaxError on line 3 of {graded_class_of_eight['seen_as']}"
            assert rows["train_step"][3].startswith(seen), rows["train_step"][3]
        # each test cell: each distinct verdict once, the fix first, wrapped inside its box
        verdicts = page.locator(".output_subarea pre:has-text('❌ train_step')")
        assert verdicts.count() == 2  # the fresh and the dirty-start test cells
        for i in range(2):
            text = verdicts.nth(i).inner_text()
            assert text.count("❌ train_step") == 1 and f"[{code}]: not passed yet" in text and "To fix:" in text, text
            if student == "gus":
                assert f"To fix: SyntaxError on line 3 of {graded_class_of_eight['seen_as']}" in text, text
            width = verdicts.nth(i).evaluate("e => [e.scrollWidth, e.clientWidth, getComputedStyle(e).whiteSpace]")
            assert width[2] == "pre-wrap" and width[0] <= width[1] + 1, width
        screenshot(page, f"issue22_feedback_{student}_top")
        verdicts.first.scroll_into_view_if_needed()
        screenshot(page, f"issue22_feedback_{student}_test_cell")
    finally:
        page.close()


def test_formgrader_has_the_summary(graded_class_of_eight):
    """The formgrader builds an HTMLExporter from nbgrader_config.py: the summary comes with it."""
    from nbconvert.exporters import HTMLExporter
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=graded_class_of_eight["course"]).load_config()
    graded = os.path.join(graded_class_of_eight["course"], "autograded", "dee", LESSON, f"{LESSON}.ipynb")
    html, _ = HTMLExporter(config=config).from_filename(graded)
    assert "Your results at a glance" in html and "never_clears" in html
    assert html.index("Your results at a glance") < html.index("Lesson 3 ·")
