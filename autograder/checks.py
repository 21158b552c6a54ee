"""What notebook test cells call: run the student's function, print the diagnosis, and fail the
cell (an AssertionError, which nbgrader scores 0) when the function is not correct.

A failed check reads as "try again", not as a crash: the ❌ line with the fix is printed once, and
the exception that fails the cell shows one plain line (``FAILED_LINE``) instead of a traceback
through the grader's own source.  IPython (JupyterLab's ipykernel, Colab, plain IPython) shows the
lines an exception's ``_render_traceback_()`` returns in place of the formatted traceback; the cell
still ends in an error output, which is what nbgrader's autograde scores 0.  The error output keeps
``NotYet`` as its ``ename`` and ``"<exercise>: <code>: <message>"`` as its ``evalue`` for the
grading reports (``grading/report.py``), which read them but do not show them.

The checks return None on purpose: nbgrader reads a test cell's displayed result as partial
credit, so a check must not leave a value as the cell's last expression."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import replace

from .display import shown_lines, wrapped
from .i18n import N_, _, ngettext, pgettext
from .sandbox.limits import DEFAULTS

QUIZ_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "quizzes")


#: What a failed check's exception shows under the ❌ line: that the cell counts as failed, without
#: repeating the hint or naming the grader's exception.  English here, in the learner's language
#: where it is shown.
FAILED_LINE = N_("Not passed yet: this cell counts as failed until its check shows ✅ passed.")


class NotYet(AssertionError):
    """The student's answer is not correct yet; the message says why (for the reports: the
    student has already read it in the ❌ line the check printed)."""

    def _render_traceback_(self) -> list[str]:
        return [_(FAILED_LINE)]


def _in_words(exercise: str, code: str) -> str:
    """The code's meaning, for the line under the verdict; "" where ``codes.py`` is hidden (a sandbox's
    job or kernel, see ``autograder.jobs.GRADER_ONLY``), which shows the verdict all the same."""
    try:
        from .codes import in_words
    except ImportError:
        return ""
    return in_words(exercise, code)


def _report(verdict, printed: str = "") -> None:
    __tracebackhide__ = True  # IPython then shows the student's cell, not the grader's frames
    if printed.strip():
        lines = printed.strip().splitlines()
        shown = "\n".join("    " + line for line in lines[:15])
        hidden = len(lines) - 15
        # i18n: the lines a student's function printed beyond the 15 shown (English says "lines" even for 1)
        left_out = ngettext("... ({n} more lines)", "... ({n} more lines)", hidden).format(n=hidden)
        more = f"\n    {left_out}" if hidden > 0 else ""
        print(_("Your function printed:") + f"\n{shown}{more}")
    meaning = _in_words(verdict.exercise, verdict.code)
    print("\n".join(shown_lines(verdict.exercise, verdict.code, verdict.passed, verdict.message, meaning=meaning)))
    if verdict.passed:
        return
    raise NotYet(f"{verdict.exercise}: {verdict.code}: {verdict.message}")


def _check(exercise: str, fn, start: str, seed: int, timeout: float | None) -> None:
    __tracebackhide__ = True  # IPython then shows the student's cell, not the grader's frames
    if os.environ.get("AUTOGRADER_CHECKS") == "outside":
        # Grading: the grader runs this check itself, outside this kernel, and its verdict replaces
        # this cell's output (autograder/grading/score.py). Should that step be missing, the cell
        # fails here rather than pass without a check.
        print(_("{exercise}: checked by the grader outside the notebook.").format(exercise=exercise))
        error = NotYet(f"{exercise}: this check runs outside the notebook, in the grader (ScoreChecks)")
        # IPython shows an exception's own lines when it has them, instead of formatting a full
        # traceback, which is slow (it reads and highlights source) and would be paid in every test
        # cell of every grading kernel, for an output that the grader replaces anyway.
        error._render_traceback_ = lambda: [f"NotYet: {error}"]
        raise error
    # The judge is imported only here, for a student's own notebook: a grading kernel never gets this
    # far, and cannot import it (the sandbox hides it).
    from .diagnose import diagnose_function
    from .verdict import Verdict

    if not callable(fn):
        message = _("{exercise} is not a function (got {kind}).").format(exercise=exercise, kind=type(fn).__name__)
        _report(Verdict(exercise, "error", message))
    limits = DEFAULTS if timeout is None else replace(DEFAULTS, check_seconds=timeout)
    verdict, printed = diagnose_function(exercise, fn, start=start, seed=seed, limits=limits)
    _report(verdict, printed)


def check(exercise: str, fn, start: str = "fresh", seed: int = 0, timeout: float | None = None) -> None:
    """Check any exercise's function by name, e.g. ``check("graph_ops", graph_ops)``."""
    __tracebackhide__ = True  # IPython then shows the student's cell, not the grader's frames
    _check(exercise, fn, start, seed, timeout)


def check_train_step(train_step, start: str = "fresh", seed: int = 0, timeout: float | None = None) -> None:
    """Check ``train_step`` from a fresh start (``start="fresh"``) or with stale gradients
    left in the parameters before the first call (``start="dirty"``)."""
    __tracebackhide__ = True  # IPython then shows the student's cell, not the grader's frames
    _check("train_step", train_step, start, seed, timeout)


def check_train_accumulated(
    train_accumulated, start: str = "fresh", seed: int = 0, timeout: float | None = None
) -> None:
    """Check ``train_accumulated`` (see ``check_train_step`` for ``start``)."""
    __tracebackhide__ = True  # IPython then shows the student's cell, not the grader's frames
    _check("train_accumulated", train_accumulated, start, seed, timeout)


def check_manual_sgd_step(manual_sgd_step, seed: int = 0, timeout: float | None = None) -> None:
    """Check ``manual_sgd_step`` on tensors of several shapes and dtypes."""
    __tracebackhide__ = True  # IPython then shows the student's cell, not the grader's frames
    _check("manual_sgd_step", manual_sgd_step, "fresh", seed, timeout)


def _answer_hash(assignment: str, question: str, answer: str) -> str:
    return hashlib.sha256(f"{assignment}:{question}:{answer}".encode()).hexdigest()


def load_quiz(assignment: str) -> dict:
    path = os.path.join(QUIZ_DIR, f"{assignment}.json")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no quick check is known for {assignment!r} (looked for {path})")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def quiz_context(assignment: str, question: str, part: str) -> str:
    """The catalogue's context of a quick check's ``why`` or ``hint``: the JSON stays English, and
    ``course_i18n`` puts each text in the ``autograder`` template under this context."""
    return f"quiz:{assignment}:{question}:{part}"


def quiz_text(assignment: str, question: str, part: str, english: str) -> str:
    """A quick check's ``why`` or ``hint`` in the learner's language."""
    return pgettext(quiz_context(assignment, question, part), english)


def _say(text: str) -> None:
    """Print ``text`` wrapped at word boundaries (Jupyter would break a long line inside a word)."""
    print("\n".join(wrapped(text, indent="")))


def check_quiz(assignment: str, question: str, answer) -> None:
    """Check one multiple-choice answer (a letter such as "b").  The quick checks are formative:
    this self-check tells right from wrong, so they carry no points.  The key stores only hashes,
    so reading the package does not hand out the answers at a glance."""
    __tracebackhide__ = True  # IPython then shows the student's cell, not the grader's frames
    quiz = load_quiz(assignment)
    if question not in quiz:
        raise KeyError(f"{assignment} has no question {question!r}; it has {', '.join(quiz)}")
    item = quiz[question]
    if not isinstance(answer, str) or answer.strip().lower() not in item["choices"]:
        choices = ", ".join(f'"{c}"' for c in item["choices"])
        text = _('❌ {question}: not answered yet. Answer with one of {choices}, as a string, e.g. {question} = "a".')
        _say(text.format(question=question, choices=choices))
        raise NotYet(f"{question}: {answer!r} is not one of the choices {choices}")
    if _answer_hash(assignment, question, answer.strip().lower()) == item["answer_sha256"]:
        why = quiz_text(assignment, question, "why", item["why"])
        _say(_("✅ {question}: right. {why}").format(question=question, why=why))
        return
    hint = quiz_text(assignment, question, "hint", item["hint"])
    _say(_("❌ {question}: not quite yet. Hint: {hint}").format(question=question, hint=hint))
    raise NotYet(f"{question}: not the right answer yet (the hint is printed above)")
