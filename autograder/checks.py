"""What notebook test cells call: run the student's function, print the diagnosis, and fail the
cell (an AssertionError, ``NotYet``, which nbgrader scores 0) when the function is not correct.

This is the self-check of a student's own kernel (JupyterLab, Binder, Colab): the function runs in
children of the kernel (``gradebox.box.child``), the judge runs here (``autograder.diagnose``).  It
is not a grade: grades come only from the sandbox.  A grading kernel never runs this module: the
grader's package is not on its file system, and its ``autograder.checks`` is the job side's
stand-in, ``gradebox.outside_checks``, whose checks only say that the grader scores them outside.
A kernel run here with ``AUTOGRADER_CHECKS=outside`` behaves the same way.

How a failure reads (one ❌ line, then one plain line instead of a traceback) is ``NotYet``'s
(``gradebox/not_yet.py``); the quick checks (``check_quiz``) are the job side's
(``gradebox/quick_checks.py``), the same in every kernel, and re-exported here.

The checks return None on purpose: nbgrader reads a test cell's displayed result as partial
credit, so a check must not leave a value as the cell's last expression."""

from __future__ import annotations

import os
from dataclasses import replace

from gradebox.display import shown_lines
from gradebox.limits import DEFAULTS
from gradebox.named_checks import named_checks
from gradebox.not_yet import FAILED_LINE, NotYet
from gradebox.outside_checks import outside
from gradebox.quick_checks import QUIZ_DIR, _answer_hash, check_quiz, load_quiz, quiz_context, quiz_text

from .i18n import _, ngettext

__all__ = ["FAILED_LINE", "QUIZ_DIR", "NotYet", "check", "check_quiz", "load_quiz", "quiz_context", "quiz_text",
           "_answer_hash"]  # fmt: skip


def _in_words(exercise: str, code: str) -> str:
    """The code's meaning, for the line under the verdict."""
    from .codes import in_words

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
        # The grader runs this check itself, outside this kernel, and its verdict replaces this
        # cell's output (autograder/grading/score.py): the same words as a grading kernel's.
        outside(exercise)
    # The judge is imported only here, for a student's own notebook: a grading kernel never gets
    # this far (it has no such module).
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


# check_train_step, check_train_accumulated, check_manual_sgd_step, ...: one per exercise whose
# declaration names a check (gradexercises/<name>/__init__.py), each calling _check.
_NAMED = named_checks(_check, __name__)
globals().update(_NAMED)
__all__ += list(_NAMED)
