"""The notebooks' named checks (``check_train_step``) are made from the declarations, with the same
signature in a student's own kernel and in a grading kernel, and read the arguments a test cell passes."""

from __future__ import annotations

import inspect

import pytest

import gradexercises
from gradebox import outside_checks
from gradebox.named_checks import named_check, named_checks, signature

NAMED = {e.check: e for e in gradexercises.EXERCISES.values() if e.check}


def test_the_lesson_3_exercises_name_their_checks():
    assert sorted(NAMED) == ["check_manual_sgd_step", "check_train_accumulated", "check_train_step"]


@pytest.mark.parametrize("name", sorted(NAMED))
def test_both_kernels_have_the_same_check(name):
    from autograder import checks

    assert inspect.signature(getattr(checks, name)) == inspect.signature(getattr(outside_checks, name))
    assert name in checks.__all__ and name in outside_checks.__all__
    assert getattr(checks, name).__name__ == name and getattr(checks, name).__module__ == "autograder.checks"


def test_a_check_without_starts_takes_no_start():
    assert list(signature(NAMED["check_manual_sgd_step"]).parameters) == ["manual_sgd_step", "seed", "timeout"]
    assert list(signature(NAMED["check_train_step"]).parameters) == ["train_step", "start", "seed", "timeout"]


def test_a_check_reads_its_arguments_as_a_test_cell_passes_them():
    calls = []
    check = named_check(NAMED["check_train_step"], lambda *args: calls.append(args))
    check("fn")
    check("fn", "dirty", 3)
    check(train_step="fn", seed=2, start="dirty", timeout=5.0)
    assert calls == [("train_step", "fn", "fresh", 0, None), ("train_step", "fn", "dirty", 3, None),
                     ("train_step", "fn", "dirty", 2, 5.0)]  # fmt: skip


def test_a_wrong_call_is_a_type_error_that_names_it():
    check = named_check(NAMED["check_manual_sgd_step"], lambda *args: None)
    with pytest.raises(TypeError, match="start"):
        check("fn", start="dirty")
    with pytest.raises(TypeError, match="manual_sgd_step"):
        check()


def test_every_declared_check_is_made():
    assert sorted(named_checks(lambda *args: None, "here")) == sorted(NAMED)
