"""The class report's class of four, defined once: the report's own tests and the instructor's language
tests (test_i18n_instructor.py) read the same class, without grading anything."""

import pytest

from autograder.grading.report import ClassReport, StudentRow

SYNTAX = "SyntaxError on line 4 of In [7] of your notebook"


def _row(student, score, train_step, reasons=None) -> StudentRow:
    return StudentRow(student, "graded", score, 9.0, {"train_step": train_step, "manual_sgd_step": "ok"},
                      reasons=reasons or {})  # fmt: skip


@pytest.fixture
def class_of_four() -> ClassReport:
    rows = [
        _row("alice", 9.0, "ok"),
        _row("bob", 6.0, "never_clears"),
        _row("carl", 6.0, "error", {"train_step": SYNTAX}),
        _row("erin", 0.0, "unanswered"),
        StudentRow("frank", "failed", reason="Untitled.ipynb is not lesson3_zeroing_grad.ipynb"),
    ]
    return ClassReport("lesson3_zeroing_grad", ["train_step", "manual_sgd_step"], rows)
