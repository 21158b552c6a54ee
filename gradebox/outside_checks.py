"""What a grading kernel's ``autograder.checks`` is: checks that say they are scored outside.

The notebooks' test cells say ``from autograder.checks import check_train_step`` (the notebooks are
released; their imports stay).  In a grading kernel the grader's package is not on the file system
at all, and a check must not judge anything there: the grader scores every check itself, in a
separate job (``jobs.score_job``), and its verdict replaces the cell's output.  So the kernel job
installs this module under that name before the notebook runs (``jobs.standins``), and each check
here only prints that it is scored outside and fails the cell, so that a cell whose scoring step
were missing fails rather than passes without a check.

The quick checks (``check_quiz``) are not scored outside: they run here as in a student's own
kernel.  ``autograder.checks`` (the student's own kernel) takes ``outside`` from here too, for a
kernel run with ``AUTOGRADER_CHECKS=outside``: one wording for both.
"""

from __future__ import annotations

from .i18n import _
from .named_checks import named_checks
from .not_yet import FAILED_LINE, NotYet
from .quick_checks import check_quiz, load_quiz, quiz_context, quiz_text

__all__ = ["FAILED_LINE", "NotYet", "check", "check_quiz", "load_quiz", "outside", "quiz_context", "quiz_text"]


def outside(exercise: str) -> None:
    """Say that the grader runs this check outside the notebook, and fail the cell."""
    __tracebackhide__ = True  # IPython then shows the student's cell, not the grader's frames
    print(_("{exercise}: checked by the grader outside the notebook.").format(exercise=exercise))
    error = NotYet(f"{exercise}: this check runs outside the notebook, in the grader (ScoreChecks)")
    # IPython shows an exception's own lines when it has them, instead of formatting a full
    # traceback, which is slow (it reads and highlights source) and would be paid in every test
    # cell of every grading kernel, for an output that the grader replaces anyway.
    error._render_traceback_ = lambda: [f"NotYet: {error}"]
    raise error


# The signatures are ``autograder.checks``'s: a test cell calls them with the same arguments
# (both are made from the exercises' declarations, ``named_checks``).


def check(exercise: str, fn, start: str = "fresh", seed: int = 0, timeout: float | None = None) -> None:
    __tracebackhide__ = True
    outside(exercise)


def _outside(exercise: str, fn, start: str, seed: int, timeout: float | None) -> None:
    __tracebackhide__ = True
    outside(exercise)


_NAMED = named_checks(_outside, __name__)
globals().update(_NAMED)
__all__ += list(_NAMED)
