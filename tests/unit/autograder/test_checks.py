"""What a learner sees when a check fails: the ❌ line with the fix once, then one plain line, no
traceback of the grader and no name of its exception; and the cell still fails (an error output).

Beside autograder/checks.py (what its self-check prints)."""

from __future__ import annotations

from types import SimpleNamespace

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from autograder.checks import FAILED_LINE, NotYet, check_quiz
from autograder.verdict import Verdict

GRADER_WORDS = ("NotYet", "checks.py", "Traceback", "AssertionError")


def _words(text: str) -> str:
    """The text as one line: what a check prints is wrapped at word boundaries."""
    return " ".join(text.split())


def _wrong_and_right(assignment: str = "lesson1_requires_grad", question: str = "q1"):
    from autograder.checks import _answer_hash, load_quiz

    item = load_quiz(assignment)[question]
    right = next(c for c in item["choices"] if _answer_hash(assignment, question, c) == item["answer_sha256"])
    wrong = next(c for c in item["choices"] if c != right)
    return wrong, right, item


def test_quiz_hint_once_one_line(capsys):
    wrong, right, item = _wrong_and_right()
    with pytest.raises(NotYet) as caught:
        check_quiz("lesson1_requires_grad", "q1", wrong)
    out = capsys.readouterr().out
    assert out.startswith("❌ q1") and _words(out).count(_words(item["hint"])) == 1
    shown = caught.value._render_traceback_()
    assert shown == [FAILED_LINE]
    assert not any(word in "\n".join(shown) for word in GRADER_WORDS)
    check_quiz("lesson1_requires_grad", "q1", right)
    assert capsys.readouterr().out.startswith("✅ q1")


def test_kernel_error_is_one_line():
    """ipykernel (JupyterLab; Colab's kernel is IPython too) sends what ``_render_traceback_``
    returns as the traceback; nbgrader sees an error output and scores the cell 0."""
    from nbclient import NotebookClient

    wrong, _, item = _wrong_and_right()
    nb = nbformat.v4.new_notebook()
    source = f'from autograder.checks import check_quiz\ncheck_quiz("lesson1_requires_grad", "q1", "{wrong}")'
    nb.cells = [new_code_cell(source)]
    NotebookClient(nb, timeout=60, allow_errors=True, kernel_name="python3").execute()
    outputs = nb.cells[0].outputs
    errors = [o for o in outputs if o.output_type == "error"]
    assert len(errors) == 1 and errors[0].ename == "NotYet"  # read by the reports, not shown
    assert errors[0].traceback == [FAILED_LINE]
    printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert _words(printed).count(_words(item["hint"])) == 1 and not any(w in printed for w in GRADER_WORDS)


class _Pool:
    def __init__(self, verdicts):
        self.verdicts = list(verdicts)

    def judge(self, exercise, start, seed, records, ended):
        return self.verdicts.pop(0)

    def judge_in(self, languages, exercise, start, seed, records, ended):
        """As the real pool: the verdict, and its message in each language (one language here)."""
        verdict = self.verdicts.pop(0)
        return verdict, dict.fromkeys(languages, verdict.message)


def _scored(verdicts):
    from autograder.grading.score import ScoreChecks

    cell = new_code_cell("check_train_step(train_step)", metadata={"nbgrader": {"grade_id": "test_train_step"}})
    checks = [{"exercise": "train_step", "start": "fresh", "seed": s} for s in range(len(verdicts))]
    ScoreChecks()._write(cell, 0, checks, [], None, _Pool(verdicts), set(), {})
    return cell


def test_grader_shows_verdicts_once():
    """Each distinct verdict once, the fix first, and no exception name."""
    wrong = Verdict("train_step", "never_clears", "Gradients pile up: call optimizer.zero_grad().")
    right = Verdict("train_step", "ok", "Correct.")
    cell = _scored([right, wrong, wrong])
    text = cell.outputs[0]["text"]
    assert text.count("[never_clears]") == 1 and text.count("Gradients pile up") == 1
    assert text.count("never_clears means: gradients pile up across updates") == 1  # the code in words, once
    assert text.index("❌") < text.index("✅")
    [error] = [o for o in cell.outputs if o.output_type == "error"]
    assert error.ename == "NotYet" and error.evalue.startswith("train_step: never_clears:")  # for the reports
    assert error.traceback == [FAILED_LINE] and "NotYet" not in FAILED_LINE
    assert len(cell.metadata["autograder"]["checks"]) == 3  # every check is still recorded


def test_fresh_pass_points_to_dirty():
    from gradexercises.train_accumulated import judge as train_accumulated
    from gradexercises.train_step import judge as train_step

    fresh = [SimpleNamespace(start="fresh", accum_steps=2)] * 2
    both = [*fresh, SimpleNamespace(start="dirty", accum_steps=3)]
    for judge in (train_step, train_accumulated):
        message = judge.MESSAGES["ok"](fresh)
        assert message.startswith("Correct from a clean start — now run the next cell, which starts from stale")
        assert "next cell" not in judge.MESSAGES["ok"](both)


def test_says_function_not_loop():
    from gradexercises.train_step import judge as train_step

    sc = SimpleNamespace(name="a scenario", start="fresh")
    for key, make in train_step.MESSAGES.items():
        if key in ("ok", "check_return", "step_count"):
            continue
        assert "loop" not in make(sc).lower(), key


# ---- a check in a grading kernel ----------------------------------------------------------------


def test_grading_check_fails_briefly(monkeypatch):
    """In a grading kernel a check only says that the grader runs it outside, and fails the cell
    in case that step is missing; IPython shows the exception's own line instead of formatting a
    traceback (which cost the grading kernel time in every test cell)."""
    from autograder.checks import NotYet, check_train_step

    monkeypatch.setenv("AUTOGRADER_CHECKS", "outside")
    with pytest.raises(NotYet) as caught:
        check_train_step(lambda *a: None)
    assert caught.value._render_traceback_() == [
        "NotYet: train_step: this check runs outside the notebook, in the grader (ScoreChecks)"
    ]
