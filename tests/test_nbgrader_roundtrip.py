"""An instructor's round trip on a clean copy of the course: generate_assignment, validate,
autograde simulated submissions, generate_feedback and export."""

import csv
import glob
import os

import pytest
from nbgrader.api import Gradebook

from tests.course_copy import answered, nbgrader, points, read, solutions, write

pytestmark = pytest.mark.slow
LESSON = "lesson3_zeroing_grad"

NEVER_CLEARS = """def train_step(model, optimizer, loss_fn, x, y):
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
"""
CLEARS_AFTER_STEP = """def train_step(model, optimizer, loss_fn, x, y):
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()
"""
LOSS_NOT_SCALED = """def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y)
        loss.backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    return losses
"""
NO_CLEAR = """def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad
"""
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


@pytest.fixture(scope="module")
def source(course):
    return read(os.path.join(course, "notebooks", LESSON, f"{LESSON}.ipynb"))


@pytest.fixture(scope="module")
def release(course):
    return read(os.path.join(course, "release", LESSON, f"{LESSON}.ipynb"))


def test_the_release_keeps_no_solution_and_no_hidden_test(release):
    text = "".join("".join(c["source"]) for c in release["cells"])
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "seed=11", "seed=21", "seed=31"):
        assert marker not in text
    assert "raise NotImplementedError()" in text


def test_the_source_notebook_validates(course):
    done = nbgrader(course, "validate", os.path.join("notebooks", LESSON, f"{LESSON}.ipynb"))
    assert "Success! Your notebook passes all the tests." in done.stdout


def test_the_unanswered_release_fails_every_test(course):
    done = nbgrader(course, "validate", "--invert", os.path.join("release", LESSON, f"{LESSON}.ipynb"))
    assert "Success! The notebook does not pass any tests." in done.stdout


@pytest.fixture(scope="module")
def graded(course, source, release):
    """Five simulated submissions, autograded by stock `nbgrader autograde`."""
    good = solutions(source)
    wrong_quiz = {qid: answer for qid, answer in good.items() if qid.startswith("quiz_")}
    wrong_quiz["quiz_q1"] = 'q1 = "zzz"'
    submissions = {
        "alice": good,
        "bob": {**good, "train_step": CLEARS_AFTER_STEP, "quiz_q1": wrong_quiz["quiz_q1"]},
        "carol": {"train_step": NEVER_CLEARS, "train_accumulated": LOSS_NOT_SCALED, "manual_sgd_step": NO_CLEAR},
        "dave": {**good, "train_step": NOISY},
        "erin": {},
    }
    for student, answers in submissions.items():
        path = os.path.join(course, "submitted", student, LESSON, f"{LESSON}.ipynb")
        write(path, answered(release, answers))
    nbgrader(course, "autograde", LESSON)
    return submissions


def _scores(course, student):
    with Gradebook(f"sqlite:///{os.path.join(course, 'gradebook.db')}") as gb:
        notebook = gb.find_submission_notebook(LESSON, LESSON, student)
        return {grade.name: grade.score for grade in notebook.grades}


def test_autograde_scores_every_submission_as_expected(course, source, graded):
    full = points(source)
    quiz = {g: p for g, p in full.items() if g.startswith("test_quiz_")}
    expected = {
        "alice": full,
        "bob": {**full, "test_train_step_dirty_start": 0.0, "test_quiz_q1": 0.0},
        "carol": {g: 0.0 for g in full},
        "dave": full,
        "erin": {g: 0.0 for g in full},
    }
    assert len(quiz) >= 4 and len(full) >= len(quiz) + 5
    for student, scores in expected.items():
        assert _scores(course, student) == scores, student


def test_feedback_shows_the_diagnosis(course, graded):
    nbgrader(course, "generate_feedback", LESSON)
    [html] = glob.glob(os.path.join(course, "feedback", "bob", LESSON, "*.html"))
    text = open(html, encoding="utf-8").read()
    assert "clears_after_step" in text
    [html] = glob.glob(os.path.join(course, "feedback", "carol", LESSON, "*.html"))
    text = open(html, encoding="utf-8").read()
    assert "never_clears" in text and "loss_not_scaled" in text and "no_clear" in text


def test_export_writes_every_student_grade(course, source, graded):
    nbgrader(course, "export", "--to", "grades.csv")
    with open(os.path.join(course, "grades.csv")) as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    total = sum(points(source).values())
    assert set(rows) == set(graded)
    assert float(rows["alice"]["score"]) == total
    assert float(rows["erin"]["score"]) == 0.0
    assert float(rows["bob"]["score"]) == total - 3
