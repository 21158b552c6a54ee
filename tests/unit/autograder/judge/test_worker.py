"""A verdict asked for in two languages (the graded copy's English message and the learner's): the
worker judges once per language, and the first judgement stands whatever the second does."""

import pytest

import autograder.judge as judge
from autograder.judge.worker import _said_again
from autograder.verdict import Verdict

FIRST = Verdict("train_step", "never_clears", "Gradients pile up.")
HEADER = {"exercise": "train_step", "start": "fresh", "seed": 0, "ended": None}


def judged_as(monkeypatch, result):
    def fake(*args, **kwargs):
        if isinstance(result, BaseException):
            raise result
        return result

    monkeypatch.setattr(judge, "judge_safely", fake)


def test_the_second_language_says_the_same_verdict_in_its_words(monkeypatch):
    judged_as(monkeypatch, Verdict("train_step", "never_clears", "Os gradientes se acumulam."))
    assert _said_again("pt_BR", FIRST, HEADER, [], None) == "Os gradientes se acumulam."


@pytest.mark.parametrize("failure", [MemoryError(), KeyError("{case}"), ValueError("broken translation")])
def test_a_second_judgement_that_fails_leaves_the_first_message(monkeypatch, failure):
    judged_as(monkeypatch, failure)
    assert _said_again("pt_BR", FIRST, HEADER, [], None) == FIRST.message


@pytest.mark.parametrize(
    "other", [Verdict("train_step", "error", "x"), Verdict("train_step", "never_clears", "x", "r")]
)
def test_a_second_judgement_that_reaches_another_code_or_review_leaves_the_first_message(monkeypatch, other):
    judged_as(monkeypatch, other)
    assert _said_again("pt_BR", FIRST, HEADER, [], None) == FIRST.message
