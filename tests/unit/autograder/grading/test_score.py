"""How the score job reads a test cell's checks (``checks_in``), and which calls it cannot read exactly
as the cell runs them (``unread_checks``): the course's notebooks have none."""

from __future__ import annotations

import os

import nbformat
import pytest

from autograder.grading.score import checks_in, quiz_answer, quiz_question, unread_checks
from tests.conftest import ASSIGNMENTS, ROOT


def _test_cells(assignment: str) -> list[str]:
    nb = nbformat.read(os.path.join(ROOT, "notebooks", assignment, f"{assignment}.ipynb"), as_version=4)
    return [c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("test_")]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_check_of_the_course_is_read_as_the_cell_runs_it(assignment):
    sources = _test_cells(assignment)
    assert sources and all(unread_checks(source) == [] for source in sources), [unread_checks(s) for s in sources]


def test_a_check_is_read_with_its_declared_signature():
    source = (
        'check_train_step(train_step, "dirty", 3)\n'
        "check_manual_sgd_step(manual_sgd_step, 5)\n"
        'check("graph_ops", graph_ops, seed=2)\n'
        'check(exercise="predict", fn=predict)\n'
        'check_train_accumulated(train_accumulated=f, start="dirty")\n'
    )
    assert [(c["exercise"], c["function"], c["start"], c["seed"]) for c in checks_in(source)] == [
        ("train_step", "train_step", "dirty", 3), ("manual_sgd_step", "manual_sgd_step", "fresh", 5),
        ("graph_ops", "graph_ops", "fresh", 2), ("predict", "predict", "fresh", 0),
        ("train_accumulated", "f", "dirty", 0),
    ]  # fmt: skip
    assert unread_checks(source) == []


@pytest.mark.parametrize(
    "source, says",
    [
        ('for s in ("fresh", "dirty"):\n    check_train_step(train_step, start=s, seed=SEED)', "not a literal"),
        ("import autograder.checks as checks\nchecks.check_train_step(train_step)", "through an attribute"),
        ('check("nope", nope)', "no exercise is named 'nope'"),
        ("check_train_step(train_step, start={[]})", "not a literal"),
        ("check_train_step(*args)", "unpacked"),
        ('check_manual_sgd_step(manual_sgd_step, "dirty")', "its seed 'dirty' is not a whole number"),
        ('check_manual_sgd_step(manual_sgd_step, start="dirty")', "the check would refuse these arguments"),
        ('check("manual_sgd_step", manual_sgd_step, "dirty")', "manual_sgd_step takes no start 'dirty'"),
        ("check_train_step(lambda *a: 0)", "not passed by its name"),
        ("check(name, graph_ops)", "its exercise is not a literal string"),
    ],
)
def test_a_call_that_cannot_be_read_as_it_runs_is_named(source, says):
    found = unread_checks(source)
    assert len(found) == 1 and says in found[0], found


def test_reading_a_cell_never_raises_on_odd_arguments():
    assert checks_in("check_train_step(train_step, start={[]})")[0]["start"] == "fresh"


# ---- the checks a test cell calls, read from its code -------------------------------------------


def test_all_checks_read_in_order():
    source = (
        "from autograder.checks import check_train_step\n"
        "check_train_step(train_step)\n"
        "### BEGIN HIDDEN TESTS\n"
        "check_train_step(train_step, start='dirty', seed=12)\n"
        "check('graph_ops', graph_ops, seed=3)\n"
        "check_manual_sgd_step(manual_sgd_step, 31)\n"
        "### END HIDDEN TESTS\n"
    )
    assert checks_in(source) == [
        {"exercise": "train_step", "function": "train_step", "start": "fresh", "seed": 0, "hidden": False},
        {"exercise": "train_step", "function": "train_step", "start": "dirty", "seed": 12, "hidden": True},
        {"exercise": "graph_ops", "function": "graph_ops", "start": "fresh", "seed": 3, "hidden": True},
        {"exercise": "manual_sgd_step", "function": "manual_sgd_step", "start": "fresh", "seed": 31, "hidden": True},
    ]
    assert checks_in("print('no checks')") == [] and checks_in("def (") == []


def test_quiz_answer_read_never_run():
    assert quiz_question('check_quiz("lesson3_zeroing_grad", "q2", q2)') == ("lesson3_zeroing_grad", "q2")
    assert quiz_answer('q2 = "b"', "q2") == "b"
    assert quiz_answer("q2 = __import__('os').system('true')", "q2") is None
