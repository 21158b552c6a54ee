"""A small graded class for the tests of publish and the LMS exports: a course folder with the
course's own nbgrader_config.py and a SQLite gradebook filled through nbgrader's API, as autograde
leaves it (one autograded test cell per notebook, its score saved, nothing left to grade by hand)."""

import os
import shutil

from nbgrader.api import Gradebook

from tests.conftest import ROOT

LESSON = "lesson3_zeroing_grad"
COURSE_ID = "autograd-course"  # nbgrader_config.py's
CELL, NOTEBOOK = "test_train_step", LESSON


def db_url(folder: str) -> str:
    return "sqlite:///" + os.path.join(folder, "gradebook.db")


def make_class(folder: str, scores: dict, max_score: float = 10.0, people: dict | None = None) -> str:
    """A course folder whose gradebook has ``scores`` (student -> points, None: no submission)."""
    os.makedirs(folder, exist_ok=True)
    shutil.copy(os.path.join(ROOT, "nbgrader_config.py"), folder)
    people = people or {}
    with Gradebook(db_url(folder), COURSE_ID) as gb:
        gb.add_assignment(LESSON)
        gb.add_notebook(NOTEBOOK, LESSON)
        gb.add_grade_cell(CELL, NOTEBOOK, LESSON, max_score=max_score, cell_type="code")
        for student, score in scores.items():
            first, last, email = people.get(student, (student.title(), "Doe", f"{student}@uni.example"))
            gb.add_student(student, first_name=first, last_name=last, email=email)
            if score is not None:
                gb.add_submission(LESSON, student)
                set_score(folder, student, score, gb)
    return folder


def set_score(folder: str, student: str, score: float, gb: Gradebook | None = None, manual: bool = False) -> None:
    """The student's autograded score becomes ``score`` (as a regrade would leave it)."""
    if gb is None:
        with Gradebook(db_url(folder), COURSE_ID) as own:
            return set_score(folder, student, score, own, manual)
    grade = gb.find_grade(CELL, NOTEBOOK, LESSON, student)
    grade.auto_score = score
    grade.needs_manual_grade = manual
    gb.db.commit()


def set_late_penalty(folder: str, student: str, penalty: float) -> None:
    with Gradebook(db_url(folder), COURSE_ID) as gb:
        gb.find_submission_notebook(NOTEBOOK, LESSON, student).late_submission_penalty = penalty
        gb.db.commit()
