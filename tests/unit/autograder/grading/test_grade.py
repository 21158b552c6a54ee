"""How `grade` sets up a run (autograder/grading/grade.py): what it starts before the first
submission.  The grading itself is the end-to-end tests' (tests/e2e/test_grading_cli.py)."""

import os

import pytest
from nbgrader.api import Gradebook

from autograder.grading import grade
from autograder.grading.execute import SandboxedExecute
from autograder.host import client
from autograder.judge import pool
from tests.course_copy import make_course

LESSON = "lesson3_zeroing_grad"


@pytest.fixture
def course(tmp_path, monkeypatch) -> str:
    """A course with three submissions, and nothing started: no server, no judging process, no grading."""
    monkeypatch.delenv("AUTOGRADER_DB_URL", raising=False)
    folder = make_course(str(tmp_path / "course"))
    with Gradebook(f"sqlite:///{os.path.join(folder, 'gradebook.db')}") as gb:
        gb.add_assignment(LESSON)
    for student in ("ada", "bob", "cy"):
        os.makedirs(os.path.join(folder, "submitted", student, LESSON))
    monkeypatch.setattr(client, "shared_server", lambda profile="kernel": None)
    monkeypatch.setattr(pool, "shared_pool", lambda *args, **kwargs: None)
    return folder


def warm_starts(course: str, students: list[str]) -> tuple[dict, list]:
    """Each graded student's warm start as their notebook's SandboxedExecute would read it, and the
    warm-ups of the shared cells the run asked for."""
    grader = grade.Grader(course, LESSON, force=True)
    seen, warmed = {}, []
    grader._warm_up_shared_cells = lambda: warmed.append(SandboxedExecute(config=grader.app.config).warm_start)

    def grade_one(student):
        seen[student] = SandboxedExecute(config=grader.app.config).warm_start
        return grade.SubmissionResult(student, "skipped")

    grader.grade_one = grade_one
    grader.run(students)
    return seen, warmed


def test_one_submission_is_graded_without_a_server_for_its_shared_cells(course):
    # It would run them once, for its scoring job alone: the job runs them itself for less.
    assert warm_starts(course, ["ada"]) == ({"ada": False}, [False])


def test_several_submissions_start_from_the_shared_cells(course):
    assert warm_starts(course, ["ada", "bob"]) == ({"ada": True, "bob": True}, [True])
    assert warm_starts(course, []) == ({"ada": True, "bob": True, "cy": True}, [True])  # everyone
