"""Lesson 2's attacks on the grader's notes (issue 33, tests/lesson2_attacks.py) through
`python -m autograder diagnose` and both notebook grading paths (`python -m autograder grade` and
plain `nbgrader autograde`): each earns nothing, and correct neighbours keep full marks.  The
notebook's self-check runs them in tests/unit/gradebox/exercises/test_lesson2.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

from tests.conftest import requires_bwrap
from tests.course_copy import answered, points, read, solutions, write
from tests.lesson2_attacks import ATTACKS, CASES, CORRECT

pytestmark = requires_bwrap

LESSON = "lesson2_backward"
EXERCISES = ("derivative", "finite_difference_grad", "input_gradient")

# One notebook per student; each attack goes into its exercise's answer cell, every other answer is correct.
STUDENTS = {
    "alice": [],
    "bob": ["derivative_correct_float32", "input_gradient_correct_per_example"],
    "mallory": ["derivative_fd_clears_calls", "fdg_autograd_raw_function", "input_gradient_fd64"],
    "oscar": ["derivative_fd_raw_function", "fdg_autograd_hidden", "input_gradient_fd64_forged"],
    "peggy": ["derivative_fd_hidden"],
    "rupert": ["fdg_restores_x_in_the_record"],
    "trudy": ["derivative_pops_recorder"],
    "victor": ["derivative_disables_functions"],
    "walter": ["derivative_forges_notes"],
}
PATHS = ("grade", "nbgrader")


def test_every_attack_is_in_a_notebook():
    placed = {name for names in STUDENTS.values() for name in names}
    assert set(ATTACKS) <= placed and placed <= set(CASES)


# ---- diagnose -------------------------------------------------------------------------------


@pytest.mark.parametrize("exercise", EXERCISES)
def test_diagnose_fails_each_attack_and_passes_each_correct_neighbour(tmp_path, exercise):
    names = [name for name, case in CASES.items() if case[0] == exercise]
    paths = []
    for name in names:
        (tmp_path / f"{name}.py").write_text(CASES[name][1])
        paths.append(f"{name}.py")
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "diagnose", exercise, *paths, "--seed", "11"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {row["file"][: -len(".py")]: row for row in map(json.loads, done.stdout.splitlines())}
    assert set(rows) == set(names)
    for name in names:
        assert rows[name]["passed"] is (name in CORRECT), rows[name]
        assert (rows[name]["code"] == "ok") is (name in CORRECT), rows[name]


# ---- the two grading paths ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def graded(tmp_path_factory, released):
    """The class of STUDENTS, graded once by each path, each in its own copy of the course."""
    first = released(str(tmp_path_factory.mktemp("lesson2-grade")), LESSON)
    source = read(os.path.join(first, "notebooks", LESSON, f"{LESSON}.ipynb"))
    release = read(os.path.join(first, "release", LESSON, f"{LESSON}.ipynb"))
    good = solutions(source)
    for student, names in STUDENTS.items():
        answers = {**good, **{CASES[name][0]: CASES[name][1] for name in names}}
        write(os.path.join(first, "submitted", student, LESSON, f"{LESSON}.ipynb"), answered(release, answers))
    second = str(tmp_path_factory.mktemp("lesson2-nbgrader"))
    shutil.rmtree(second)
    shutil.copytree(first, second)
    running = {}
    for path, course in zip(PATHS, (first, second)):
        command = [sys.executable, "-m", "autograder", "grade", LESSON, "--jobs", "2"]
        if path == "nbgrader":
            command = ["nbgrader", "autograde", LESSON]
        out = open(os.path.join(course, f"{path}.log"), "w")  # noqa: SIM115 - closed below, after the wait
        running[path] = (subprocess.Popen(command, cwd=course, stdout=out, stderr=subprocess.STDOUT), out, course)
    results = {}
    for path, (process, out, course) in running.items():
        process.wait(timeout=1800)
        out.close()
        with open(os.path.join(course, f"{path}.log")) as f:
            log = f.read()
        assert process.returncode == 0, log[-3000:]
        with Gradebook(f"sqlite:///{os.path.join(course, 'gradebook.db')}") as gb:
            results[path] = {s: gb.find_submission(LESSON, s).score for s in STUDENTS}
    return {"scores": results, "points": points(source)}


# Attacks that leave a torch mode on once their answer cell has run: that is a change to torch, so every
# check from there on is `tampered` and earns nothing (as after any other change to torch); the checks
# of the exercises before it keep their points.
LEAVES_A_MODE = {"fdg_restores_x_in_the_record"}


def _expected(student: str, source_points: dict[str, float]) -> float:
    tampering = [CASES[name][0] for name in STUDENTS[student] if name in LEAVES_A_MODE]
    if tampering:
        earned = 0.0
        for grade, value in source_points.items():  # in notebook order
            if any(grade.startswith(f"test_{exercise}") for exercise in tampering):
                return earned
            earned += value
    attacked = {CASES[name][0] for name in STUDENTS[student] if name in ATTACKS}
    return sum(
        value
        for grade, value in source_points.items()
        if not any(grade.startswith(f"test_{exercise}") for exercise in attacked)
    )


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("student", sorted(STUDENTS))
def test_each_attack_earns_nothing_and_correct_work_keeps_full_marks(graded, path, student):
    total = sum(graded["points"].values())
    expected = _expected(student, graded["points"])
    assert graded["scores"][path][student] == expected
    if not set(STUDENTS[student]) & set(ATTACKS):
        assert expected == total
    else:
        assert expected < total
