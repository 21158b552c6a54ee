"""The judges speak the learner's language: under the pseudo-language every marked sentence comes out
as ``⟦English⟧``, so a verdict whose message still holds a bare English word names a sentence the
catalogue never sees.  The code and ``passed`` never follow the language, and English stays as it was.

The records are the labelled corpus's (tests/fixtures/corpus), run once in the sandbox as
``diagnose`` runs them (one run for the suite's corpus tests, tests/corpus_runs.py); each is then judged
here, in this process, in English and in the pseudo-language.
"""

from __future__ import annotations

import re

import pytest

from autograder import verdict
from autograder.i18n import speaking
from autograder.judge import judge_check, judge_safely
from autograder.verdict import Verdict, seen_with, strip_case, together
from gradebox import display, exercises
from tests.i18n_pseudo import pseudo_language, wrapped
from tests.labelled import CORPUS, labelled_files

FILES = [f for f in labelled_files(CORPUS) if f[3] != "timeout"]  # a hang's verdict is _failed's, judged below
SPAN = re.compile(r"⟦[^⟦⟧]*⟧")
WORD = re.compile(r"[A-Za-z][A-Za-z_]{2,}")
# Words that are code, kept English in every language: the functions f of the lessons' scenarios.
CODE_WORDS = {"sin", "exp", "tanh", "sigmoid", "relu", "abs", "cos", "log", "sqrt", "softplus", "cube", "cubic"}


def bare_words(message: str) -> list[str]:
    """The English words of ``message`` outside every pseudo-translated piece (pieces nest: a
    template's placeholders hold pieces of their own)."""
    text, before = message, None
    while text != before:
        text, before = SPAN.sub(" ", text), text
    return [w for w in WORD.findall(text) if w.lower() not in CODE_WORDS]


@pytest.fixture(scope="module")
def corpus_records(corpus_runs):
    """(exercise, path, code, records, ended) of every labelled file, from the session's one run of the
    corpus in the sandbox (tests/corpus_runs.py)."""
    return [(e, path, code, *corpus_runs(e)[path]) for e, path, _passed, code in FILES]


@pytest.fixture(scope="module")
def judged(corpus_records, tmp_path_factory):
    """Each file's verdict in English, in the pseudo-language, and in English again after it."""
    english = [judge_safely(e, "all", 0, records, ended) for e, _, _, records, ended in corpus_records]
    with pseudo_language(str(tmp_path_factory.mktemp("pseudo"))):
        pseudo = [judge_safely(e, "all", 0, records, ended) for e, _, _, records, ended in corpus_records]
    after = [judge_safely(e, "all", 0, records, ended) for e, _, _, records, ended in corpus_records]
    return [(item[1], item[2], *rest) for item, *rest in zip(corpus_records, english, pseudo, after)]


def test_every_corpus_verdict_is_made_only_of_translated_sentences(judged):
    unmarked = {path: (p.message, bare_words(p.message)) for path, _, _, p, _ in judged if bare_words(p.message)}
    assert not unmarked, unmarked
    assert all(wrapped(p.message) for _, _, _, p, _ in judged)


def test_the_language_changes_no_code_and_no_pass(judged):
    for path, label, english, pseudo, _ in judged:
        assert (pseudo.code, pseudo.passed) == (english.code, english.passed) == (label, label == "ok"), path


def test_english_is_the_same_before_and_after_the_pseudo_language(judged):
    assert [e.message for _, _, e, _, _ in judged] == [a.message for _, _, _, _, a in judged]
    assert not any(wrapped(e.message) for _, _, e, _, _ in judged)


def test_a_timeout_and_a_dead_run_are_told_in_the_language(tmp_path):
    ended = [{"failure": "timeout", "detail": ""}, {"failure": "died", "detail": "exit code 3"}]
    english = [judge_check("train_step", "fresh", 0, [], e) for e in ended]
    with pseudo_language(str(tmp_path)):
        pseudo = [judge_check("train_step", "fresh", 0, [], e) for e in ended]
    assert [v.code for v in pseudo] == [v.code for v in english] == ["timeout", "error"]
    assert all(wrapped(v.message) and not bare_words(v.message) for v in pseudo)
    assert "exit code 3. Never call os._exit() or exit() in the function (seen with " in english[1].message


@pytest.mark.parametrize("exercise", sorted(exercises.EXERCISES))
def test_every_scenario_is_named_in_the_language(exercise, tmp_path):
    """A case's name is shown after a mistake ("seen with ..."): whole phrases, code and numbers kept."""
    english = [s.name for s in exercises.get(exercise).suite("all", 0)]
    with pseudo_language(str(tmp_path)):
        pseudo = [s.name for s in exercises.get(exercise).suite("all", 0)]
    assert all(wrapped(name) and not bare_words(name) for name in pseudo), pseudo
    assert english == [s.name for s in exercises.get(exercise).suite("all", 0)] and not any(map(wrapped, english))


def test_problems_splits_a_pseudo_message_naming_several(tmp_path):
    with pseudo_language(str(tmp_path)):
        parts = [Verdict("train_step", code, text) for code, text in [("no_step", "One."), ("no_clear", "Two.")]]
        message = together("train_step", parts, keep_order=True).message
        assert display.problems(message) == ["One.", "⟦Also:⟧ two."]
        # The English kept beside it (a graded copy's metadata) splits too: every edition's joiner does.
        assert display.problems("One. Also: two.") == ["One.", "Also: two."]
        assert display.shown_lines("train_step", "no_step", False, message)[0].endswith("⟦not passed yet⟧")
    # Outside the block, the same words are English again, and split as before.
    assert display.problems("One. Also: two.") == ["One.", "Also: two."]
    assert display.problems(message) == [message]  # the pseudo-language is no edition: its joiner is not known


def test_strip_case_strips_the_case_in_the_language_of_today(tmp_path):
    with pseudo_language(str(tmp_path)):
        message = seen_with("⟦Gradients pile up.⟧", "⟦a linear model (MSE)⟧")
        assert message == "⟦⟦Gradients pile up.⟧ (seen with ⟦a linear model (MSE)⟧).⟧"
        assert strip_case(message) == "⟦Gradients pile up.⟧."
        assert verdict.names_a_case(message) and not verdict.names_a_case("⟦Gradients pile up.⟧")
    english = seen_with("Gradients pile up.", "a linear model (MSE), SGD")
    assert english == "Gradients pile up (seen with a linear model (MSE), SGD)."
    assert strip_case(english) == "Gradients pile up." and strip_case("No case here.") == "No case here."


def test_returned_kind_is_a_whole_phrase_per_article(tmp_path):
    english = [verdict.returned_kind(t) for t in (None, "int", "list")]
    assert english == ["None (no return statement?)", "an int", "a list"]
    with pseudo_language(str(tmp_path)):
        assert [verdict.returned_kind(t) for t in (None, "int", "list")] == [
            "⟦None (no return statement?)⟧",
            "⟦an int⟧",
            "⟦a list⟧",
        ]


def test_a_hostile_language_leaves_english():
    with speaking("../../x"):
        assert verdict.returned_kind("int") == "an int" and display.problems("A. Also: b.") == ["A.", "Also: b."]


def test_a_count_chooses_its_plural_form_in_english_and_in_the_catalogue(tmp_path):
    """No "time(s)": one msgid pair per count, so a language with other plural rules can say it."""
    from types import SimpleNamespace

    from gradexercises.train_accumulated import judge as train_accumulated
    from gradexercises.train_step import judge as train_step

    sc = SimpleNamespace(n_batches=6, accum_steps=3, name="a case")
    run = SimpleNamespace(losses=[1.0, 2.0, 3.0], k=3)
    step_count = [train_step.MESSAGES["step_count"](sc, n, 3) for n in (1, 2)]
    assert "parameters 1 time over 3 calls" in step_count[0] and "parameters 2 times over 3 calls" in step_count[1]
    assert "ran 1 time for 6 micro-batches" in train_accumulated.MESSAGES["step_count"](sc, 1, 2)
    losses = [train_accumulated._check_return(run, {"calls": [{"returned": {"numbers": [1.0] * n}}]}) for n in (1, 2)]
    assert losses == [
        "train_accumulated returned 1 loss for 3 micro-batches.",
        "train_accumulated returned 2 losses for 3 micro-batches.",
    ]
    with pseudo_language(str(tmp_path)):
        assert train_step.MESSAGES["step_count"](sc, 1, 3).startswith("⟦optimizer.step() changed")
        assert train_accumulated._check_return(run, {"calls": [{"returned": {"numbers": [1.0]}}]}).startswith("⟦")


def test_why_a_record_is_refused_is_told_in_the_language(tmp_path):
    """A record the grader cannot accept is named to the learner: its reason and the place in words."""
    from autograder.judge import judge_scenarios
    from gradebox.jobs.run import encode_record

    scenarios = exercises.get("derivative").suite("all", 0)
    records = [encode_record({"observation": {"forged": 1}, "error": None, "tampered": []})] * len(scenarios)
    english = judge_scenarios("derivative", scenarios, records)
    with pseudo_language(str(tmp_path)):
        pseudo = judge_scenarios("derivative", scenarios, records)
    assert english.message == (
        "The run of your code sent back a record the grader cannot accept (the observation has unknown keys forged)."
    )
    assert "(⟦⟦the observation⟧ has unknown keys forged⟧)" in pseudo.message and not bare_words(pseudo.message)
    assert (pseudo.code, pseudo.passed) == (english.code, english.passed) == ("error", False)


def test_the_line_an_exception_came_from_is_said_in_the_language(tmp_path):
    from autograder.judge import error_verdict

    error = {"type": "ZeroDivisionError", "message": "division by zero", "where": "line 4"}
    forged = {**error, "where": "line 4 or wherever"}
    english = error_verdict("train_step", error)
    assert english.message == "Your function raised ZeroDivisionError at line 4: division by zero"
    with pseudo_language(str(tmp_path)):
        assert error_verdict("train_step", error).message == (
            "⟦Your function raised {kind} at {where}: {message}⟧".format(
                kind="ZeroDivisionError", where="⟦line 4⟧", message="division by zero"
            )
        )
        assert "at line 4 or wherever:" in error_verdict("train_step", forged).message  # shown as it is
