"""An instructor's round trip on a clean copy of the course: generate_assignment, validate,
autograde simulated submissions, generate_feedback and export."""

import csv
import glob
import os
import re

import pytest
from nbgrader.api import Gradebook

from tests.conftest import ASSIGNMENTS, ROOT
from tests.course_copy import (
    CLEARS_AFTER_STEP,
    LOSS_NOT_SCALED,
    NEVER_CLEARS,
    NO_CLEAR,
    answered,
    grade_id,
    nbgrader,
    points,
    problems,
    read,
    solutions,
    write,
)

pytestmark = pytest.mark.slow
LESSON = "lesson3_zeroing_grad"

NOISY = """import sys, warnings
print("defining my step")
warnings.warn("a harmless warning while defining it")


def train_step(model, optimizer, loss_fn, x, y):
    print("debugging my step")
    warnings.warn("a harmless warning from my own code")
    sys.stderr.write("and something on stderr\\n")
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
"""


def _source(course, assignment):
    return read(os.path.join(course, "notebooks", assignment, f"{assignment}.ipynb"))


def _release(course, assignment):
    return read(os.path.join(course, "release", assignment, f"{assignment}.ipynb"))


def _hidden_lines(nb) -> set[str]:
    lines, inside = set(), False
    for cell in nb["cells"]:
        for line in "".join(cell["source"]).splitlines():
            if "BEGIN HIDDEN TESTS" in line:
                inside = True
            elif "END HIDDEN TESTS" in line:
                inside = False
            elif inside and line.strip():
                lines.add(line.strip())
    return lines


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_keeps_nothing_hidden(course, assignment):
    source, release = _source(course, assignment), _release(course, assignment)
    text = "".join("".join(c["source"]) for c in release["cells"])
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
        assert marker not in text
    hidden = _hidden_lines(source)
    assert hidden, "every assignment has hidden tests"
    release_lines = {line.strip() for line in text.splitlines()}
    assert not hidden & release_lines
    for gid in solutions(source):
        [cell] = [c for c in release["cells"] if grade_id(c) == gid]
        assert "raise NotImplementedError()" in "".join(cell["source"]), gid


def _validate(course, *args: str) -> str:
    """One `nbgrader validate` over every lesson (it takes several notebooks, and prints one verdict
    for each, in order): one nbgrader start instead of one per lesson."""
    return nbgrader(course, "validate", *args).stdout


# `nbgrader validate` on the sources: tests/e2e/test_notebooks.py, on the run it makes of every lesson.


def test_releases_fail_every_test(course):
    done = _validate(course, "--invert", *(os.path.join("release", a, f"{a}.ipynb") for a in ASSIGNMENTS))
    assert done.count("Success! The notebook does not pass any tests.") == len(ASSIGNMENTS), done


def lesson3_submissions(good: dict[str, str]) -> dict[str, dict[str, str]]:
    """Lesson 3's partial-credit cases on top of the complete and the blank submission."""
    return {
        "bob": {**good, "train_step": CLEARS_AFTER_STEP, "quiz_q1": 'q1 = "zzz"'},
        "carol": {"train_step": NEVER_CLEARS, "train_accumulated": LOSS_NOT_SCALED, "manual_sgd_step": NO_CLEAR},
        "dave": {**good, "train_step": NOISY},
    }


@pytest.fixture(scope="module")
def graded(course):
    """Simulated submissions for every assignment, autograded by stock `nbgrader autograde` ("*" matches
    every assignment's folder, as an instructor may type it)."""
    submissions = {}
    for assignment in ASSIGNMENTS:
        source, release = _source(course, assignment), _release(course, assignment)
        good = solutions(source)
        students = {"alice": good, "erin": {}}
        if assignment == LESSON:
            students.update(lesson3_submissions(good))
        for student, answers in students.items():
            path = os.path.join(course, "submitted", student, assignment, f"{assignment}.ipynb")
            write(path, answered(release, answers))
        submissions[assignment] = students
    nbgrader(course, "autograde", "*")  # one nbgrader (and one warm sandbox) for every assignment
    return submissions


def _scores(course, assignment, student):
    with Gradebook(f"sqlite:///{os.path.join(course, 'gradebook.db')}") as gb:
        notebook = gb.find_submission_notebook(assignment, assignment, student)
        return {grade.name: grade.score for grade in notebook.grades}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_full_marks_and_none(course, graded, assignment):
    full = points(_source(course, assignment))
    assert _scores(course, assignment, "alice") == full
    assert _scores(course, assignment, "erin") == {g: 0.0 for g in full}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_answered_runs_cleanly(course, graded, assignment):
    """The release with every answer filled in runs with no error and nothing on stderr, hidden tests
    included: alice's submission, in the run autograde made of it.  The grader shows a test cell's
    stderr as stdout (``SandboxedExecute.forgive_stderr_in_tests``), so a test cell's stderr is
    checked where nothing relabels it: tests/e2e/test_notebooks.py runs every source (the same test
    cells, with the same answers) and tests/e2e/colab/ every answered release of the lessons."""
    alice = read(os.path.join(course, "autograded", "alice", assignment, f"{assignment}.ipynb"))
    code = [c for c in alice["cells"] if c["cell_type"] == "code"]
    assert code and all(c["execution_count"] is not None for c in code), "autograde ran every cell"
    assert problems(alice) == []


def test_lesson3_partial_credit(course, graded):
    full = points(_source(course, LESSON))
    expected = {
        "bob": {**full, "test_train_step_dirty_start": 0.0},  # a wrong quiz answer costs nothing
        "carol": {g: 0.0 for g in full},
        "dave": full,
    }
    assert len(full) == 5 and not any(g.startswith("test_quiz_") for g in full)
    for student, scores in expected.items():
        assert _scores(course, LESSON, student) == scores, student


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_quick_checks_carry_no_points(assignment):
    """The self-check tells right from wrong with the hashed keys shipped in gradebox/quizzes/,
    which anyone can try four letters against: the quick checks are formative."""
    cells = read(os.path.join(ROOT, "notebooks", assignment, f"{assignment}.ipynb"))["cells"]
    quiz = [
        c["metadata"]["nbgrader"]
        for c in cells
        if (c["metadata"].get("nbgrader", {}).get("grade_id") or "").startswith("test_quiz_")
    ]
    assert quiz and all(not m.get("grade") and "points" not in m for m in quiz)


def test_feedback_shows_diagnosis(course, graded):
    nbgrader(course, "generate_feedback", LESSON)
    [html] = glob.glob(os.path.join(course, "feedback", "bob", LESSON, "*.html"))
    text = open(html, encoding="utf-8").read()
    assert "clears_after_step" in text
    [html] = glob.glob(os.path.join(course, "feedback", "carol", LESSON, "*.html"))
    text = open(html, encoding="utf-8").read()
    assert "never_clears" in text and "loss_not_scaled" in text and "no_clear" in text


def test_feedback_hides_hidden_tests(course, graded):
    import html as html_module

    visible = {line.strip() for c in _release(course, LESSON)["cells"] for line in "".join(c["source"]).splitlines()}
    hidden = _hidden_lines(_source(course, LESSON)) - visible
    assert hidden, "lesson 3 has hidden tests"
    nbgrader(course, "generate_feedback", LESSON, "--force")
    for student in ("alice", "bob", "carol"):
        [page] = glob.glob(os.path.join(course, "feedback", student, LESSON, "*.html"))
        text = html_module.unescape(re.sub(r"<[^>]+>", "", open(page, encoding="utf-8").read()))
        assert "hidden tests ran here" in text
        for line in hidden:
            assert line not in text, (student, line)


def test_export_writes_every_grade(course, graded):
    nbgrader(course, "export", "--to", "grades.csv")
    with open(os.path.join(course, "grades.csv")) as f:
        rows = {(row["assignment"], row["student_id"]): row for row in csv.DictReader(f)}
    everyone = {student for students in graded.values() for student in students}
    for assignment, students in graded.items():
        total = sum(points(_source(course, assignment)).values())
        # export lists every student of the course for every assignment; no submission scores 0
        assert {s for a, s in rows if a == assignment} == everyone
        for absent in everyone - set(students):
            assert float(rows[assignment, absent]["score"]) == 0.0
        assert float(rows[assignment, "alice"]["score"]) == total
        assert float(rows[assignment, "erin"]["score"]) == 0.0
    total = sum(points(_source(course, LESSON)).values())
    assert float(rows[LESSON, "bob"]["score"]) == total - 2  # the dirty start only: quizzes carry no points
