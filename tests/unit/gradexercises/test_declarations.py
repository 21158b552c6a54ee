"""Each exercise is declared once (``gradexercises/<name>/__init__.py``), and what the course says of it
elsewhere is made from that declaration or checked against it: the lessons' test cells and their points,
the job and judge beside it, the files a job's file system holds."""

from __future__ import annotations

import json
import os

import pytest

import gradexercises
from gradexercises import LESSONS, Exercise
from tests.conftest import ASSIGNMENTS, ROOT

GOOD = dict(name="double_it", lesson="lesson1_requires_grad", signature="double_it(x) -> float",
            codes={"ok": "correct", "wrong_value": "not twice x"}, revisit={"": "1. A section"},
            points={"test_double_it": 1})  # fmt: skip


def _graded_cells(assignment: str) -> dict[str, float]:
    path = os.path.join(ROOT, "notebooks", assignment, f"{assignment}.ipynb")
    with open(path, encoding="utf-8") as f:
        cells = json.load(f)["cells"]
    metas = [c.get("metadata", {}).get("nbgrader", {}) for c in cells]
    return {
        m["grade_id"]: m.get("points") for m in metas if m.get("grade") and m.get("grade_id", "").startswith("test_")
    }


def test_the_exercises_are_declared_in_the_order_of_the_lessons():
    lessons = [e.lesson for e in gradexercises.EXERCISES.values()]
    assert lessons == sorted(lessons, key=LESSONS.index)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_test_cell_of_a_lesson_is_declared_with_its_points(assignment):
    """The points `sync` writes into every edition of a lesson are the declared ones, and no test cell
    grades an exercise that is not declared (the quick checks' cells are not graded)."""
    lesson = assignment.removesuffix("_pt_br")
    declared = {g: p for e in gradexercises.EXERCISES.values() if e.lesson == lesson for g, p in e.points.items()}
    assert _graded_cells(assignment) == declared


@pytest.mark.parametrize("name", sorted(gradexercises.EXERCISES))
def test_each_declaration_sits_beside_its_job_and_judge(name):
    folder = os.path.join(gradexercises.FOLDER, name)
    assert sorted(f for f in os.listdir(folder) if f.endswith(".py")) == ["__init__.py", "job.py", "judge.py"]
    assert gradexercises.declared(name).name == name


def test_a_job_reads_the_declarations_and_job_sides_never_a_judge():
    files = [os.path.relpath(p, gradexercises.FOLDER) for p in gradexercises.job_side_files()]
    assert files[:2] == ["__init__.py", "_lesson3.py"] and files.count("__init__.py") == 1
    for name in gradexercises.EXERCISES:
        assert f"{name}/__init__.py" in files and f"{name}/job.py" in files
    assert [f for f in files if "judge" in f or "__pycache__" in f] == []
    # Any other file at the top (a helper some judges share, say) is not on a job's file system.
    assert sorted(f for f in os.listdir(gradexercises.FOLDER) if f.endswith(".py")) == ["__init__.py", "_lesson3.py"]


def test_an_unknown_exercise_names_the_ones_there_are():
    with pytest.raises(KeyError, match="unknown exercise 'nope'; the exercises are: derivative, "):
        gradexercises.declared("nope")


def test_a_good_declaration_is_read_only():
    exercise = Exercise(**GOOD)
    assert exercise.starts == ("fresh", "dirty") and exercise.check is None
    with pytest.raises(TypeError):
        exercise.codes["new"] = "written later"


def test_two_exercises_cannot_share_a_name_or_a_check():
    first = Exercise(**{**GOOD, "check": "check_double_it"})
    twin = Exercise(**{**GOOD, "name": "twice", "signature": "twice(x)", "points": {"test_twice": 1},
                       "check": "check_double_it"})  # fmt: skip
    with pytest.raises(ValueError, match="exercises 'double_it' and 'twice' both declare the check 'check_double_it'"):
        gradexercises.collect([first, twin])
    with pytest.raises(ValueError, match="two exercises are named 'double_it'"):
        gradexercises.collect([first, Exercise(**GOOD)])
    other = Exercise(**{**GOOD, "name": "twice", "signature": "twice(x)", "points": {"test_twice": 1}})
    assert list(gradexercises.collect([first, other])) == ["double_it", "twice"]


def test_the_contract_s_twelve_exercises_are_declared():
    """The contract fixes twelve exercises (a lesson may add more)."""
    contract = {"graph_ops", "freeze_all_but", "derivative", "finite_difference_grad", "train_step",
                "train_accumulated", "manual_sgd_step", "predict", "evaluate"}  # fmt: skip
    assert contract <= set(gradexercises.EXERCISES) and len(gradexercises.EXERCISES) >= 12


@pytest.mark.parametrize(
    "change, says",
    [
        ({"name": "double it"}, "is not a Python name"),
        ({"lesson": "lesson5"}, "its lesson 'lesson5' is none of"),
        ({"signature": "triple(x)"}, "does not start with double_it("),
        ({"codes": {}}, "it lists no codes"),
        ({"revisit": {"ok": "1. A section"}}, 'no default section (the key "")'),
        ({"revisit": {"": "1.", "clears_once": "2."}}, "revisit names codes it does not list: clears_once"),
        ({"points": {"test_other": 1}}, "(got test_other)"),
        ({"points": {"test_double_it": 1.5}}, "(got test_double_it)"),
        ({"points": {}}, "(got none)"),
        ({"check": "check-double"}, "its check 'check-double' is not a Python name"),
        ({"name": "seed", "signature": "seed(x)", "points": {"test_seed": 1}}, "is a parameter of every check"),
        ({"name": "lambda", "signature": "lambda(x)", "points": {"test_lambda": 1}}, "is not a Python name"),
        ({"check": "check_quiz"}, "would replace the checks module's own check_quiz"),
        ({"check": "check"}, "would replace the checks module's own check"),
        ({"starts": ("stale",)}, "its starts ('stale',) are not among"),
    ],
)
def test_a_bad_declaration_says_what_is_wrong(change, says):
    with pytest.raises(ValueError, match="exercise '") as error:
        Exercise(**{**GOOD, **change})
    assert says in str(error.value)
