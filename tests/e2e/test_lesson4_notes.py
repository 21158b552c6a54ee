"""Lesson 4's attacks on the grader's notes (tests/lesson4_hostile.py) earn nothing on every path that
runs student code: `python -m autograder diagnose`, the notebook's self-check (`autograder.checks.check`),
`python -m autograder grade` and plain `nbgrader autograde`; the correct answer beside them keeps full
marks on each.  The attacks rewrite what the handed-out model used to note, hide a tracked forward
behind a throw-away untracked one, or switch the grader's recording off."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import nbformat
import pytest
from nbgrader.api import Gradebook

from tests.conftest import requires_bwrap
from tests.course_copy import answered, points, read, solutions, write
from tests.labelled import diagnose
from tests.lesson4_hostile import ATTACKS, CORRECT, attacks_of

pytestmark = requires_bwrap

LESSON = "lesson4_no_grad"
EXERCISES = sorted(CORRECT)
# A student per attack that every exercise has, answering all three with it (quick checks right).
GRADED_ATTACKS = ("rewrites_calls", "throwaway_then_net", "disable_torch_function")
PATHS = ("nbgrader", "grade")


def _load(source: str, name: str):
    namespace = {"__name__": "submission"}
    exec(compile(source, f"<{name}>", "exec"), namespace)
    return namespace[name]


# -- diagnose ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def diagnosed(tmp_path_factory):
    """Every attack and the correct answer of each exercise, one `diagnose` command per exercise."""
    folder = str(tmp_path_factory.mktemp("lesson4-notes"))
    rows = {}
    for exercise in EXERCISES:
        sources = {"correct": CORRECT[exercise], **{name: src for name, (src, _) in attacks_of(exercise).items()}}
        paths = []
        for name, source in sources.items():
            path = os.path.join(folder, f"{exercise}_{name}.py")
            with open(path, "w", encoding="utf-8") as f:
                f.write(source)
            paths.append(path)
        found = diagnose(exercise, paths, 60, folder)
        rows[exercise] = {os.path.basename(p)[len(exercise) + 1 : -3]: row for p, row in found.items()}
    return rows


@pytest.mark.parametrize("exercise", EXERCISES)
def test_diagnose_passes_the_correct_neighbour(diagnosed, exercise):
    row = diagnosed[exercise]["correct"]
    assert row["passed"] and row["code"] == "ok", row


IDS = [f"{e}-{n}" for e, n, _, _ in ATTACKS]


@pytest.mark.parametrize("exercise, name, code", [(e, n, c) for e, n, _, c in ATTACKS], ids=IDS)
def test_diagnose_gives_each_attack_nothing(diagnosed, exercise, name, code):
    row = diagnosed[exercise][name]
    assert not row["passed"] and row["code"] == code, row
    assert not row["message"].startswith("Correct"), row["message"]


# -- the notebook's self-check ------------------------------------------------------------------------


@pytest.mark.parametrize("exercise", EXERCISES)
def test_self_check_passes_the_correct_neighbour(exercise, capsys):
    from autograder.checks import check

    check(exercise, _load(CORRECT[exercise], exercise))
    assert f"{exercise}: passed" in capsys.readouterr().out


@pytest.mark.parametrize("exercise, name, source, code", ATTACKS, ids=IDS)
def test_self_check_fails_each_attack(exercise, name, source, code, capsys):
    from autograder.checks import NotYet, check

    with pytest.raises(NotYet, match=rf"{exercise}: {code}:"):
        check(exercise, _load(source, exercise))
    assert f"{exercise} [{code}]: not passed yet" in capsys.readouterr().out


# -- grading whole notebooks, both paths ----------------------------------------------------------------


@pytest.fixture(scope="module")
def graded(tmp_path_factory, released):
    """alice answers correctly; each other student answers all three exercises with one attack.
    Graded by plain `nbgrader autograde` and by `python -m autograder grade`, each in its own copy."""
    first = released(str(tmp_path_factory.mktemp("lesson4-nbgrader")), LESSON)
    source = read(os.path.join(first, "notebooks", LESSON, f"{LESSON}.ipynb"))
    release = read(os.path.join(first, "release", LESSON, f"{LESSON}.ipynb"))
    good = solutions(source)
    students = {"alice": good}
    for attack in GRADED_ATTACKS:
        students[attack.replace("_", "")] = {**good, **{e: attacks_of(e)[attack][0] for e in EXERCISES}}
    for student, answers in students.items():
        write(os.path.join(first, "submitted", student, LESSON, f"{LESSON}.ipynb"), answered(release, answers))
    second = str(tmp_path_factory.mktemp("lesson4-grade"))
    shutil.rmtree(second)
    shutil.copytree(first, second)
    commands = {"nbgrader": ["nbgrader", "autograde", LESSON],
                "grade": [sys.executable, "-m", "autograder", "grade", LESSON, "--jobs", "2"]}  # fmt: skip
    logs = str(tmp_path_factory.mktemp("lesson4-logs"))
    running = {}
    for path, course in zip(PATHS, (first, second)):
        with open(os.path.join(logs, f"{path}.out"), "w") as out:
            running[path] = subprocess.Popen(commands[path], cwd=course, stdout=out, stderr=subprocess.STDOUT)
    for path, process in running.items():
        assert process.wait(timeout=1800) == 0, open(os.path.join(logs, f"{path}.out")).read()[-3000:]
    return {"courses": dict(zip(PATHS, (first, second))), "source": source, "students": list(students)}


def _score(course: str, student: str) -> float:
    with Gradebook(f"sqlite:///{os.path.join(course, 'gradebook.db')}") as gb:
        return gb.find_submission(LESSON, student).score


def _outputs(course: str, student: str) -> str:
    nb = nbformat.read(os.path.join(course, "autograded", student, LESSON, f"{LESSON}.ipynb"), as_version=4)
    return "\n".join(str(o.get("text", "")) + str(o.get("evalue", "")) for c in nb.cells for o in c.get("outputs", []))


@pytest.mark.parametrize("path", PATHS)
def test_grading_keeps_full_marks_for_the_correct_neighbour(graded, path):
    assert _score(graded["courses"][path], "alice") == sum(points(graded["source"]).values())


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("attack", GRADED_ATTACKS)
def test_grading_gives_the_attacks_nothing(graded, path, attack):
    full = points(graded["source"])
    exercise_points = sum(p for grade, p in full.items() if grade.startswith(tuple(f"test_{e}" for e in EXERCISES)))
    course = graded["courses"][path]
    student = attack.replace("_", "")
    assert exercise_points > 0
    assert _score(course, student) == sum(full.values()) - exercise_points
    if attack == "disable_torch_function":
        assert re.search(r"the grader's recording", _outputs(course, student))
