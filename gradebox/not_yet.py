"""The exception that fails a test cell whose check did not pass: ``NotYet``, "try again".

A failed check reads as "try again", not as a crash: the ❌ line with the fix is printed once, and
the exception that fails the cell shows one plain line (``FAILED_LINE``) instead of a traceback
through the grader's own source.  IPython (JupyterLab's ipykernel, Colab, plain IPython) shows the
lines an exception's ``_render_traceback_()`` returns in place of the formatted traceback; the cell
still ends in an error output, which is what nbgrader's autograde scores 0.  The error output keeps
``NotYet`` as its ``ename`` and ``"<exercise>: <code>: <message>"`` as its ``evalue`` for the
grading reports (``autograder/grading/report.py``), which read them but do not show them.

It lives on the job side because both kinds of kernel raise it: a student's own (the self-check,
``autograder.checks``) and a grading kernel (``gradebox.outside_checks``, the quick checks).
"""

from __future__ import annotations

from .i18n import N_, _

#: What a failed check's exception shows under the ❌ line: that the cell counts as failed, without
#: repeating the hint or naming the grader's exception.  English here, in the learner's language
#: where it is shown.
FAILED_LINE = N_("Not passed yet: this cell counts as failed until its check shows ✅ passed.")


class NotYet(AssertionError):
    """The student's answer is not correct yet; the message says why (for the reports: the
    student has already read it in the ❌ line the check printed)."""

    def _render_traceback_(self) -> list[str]:
        return [_(FAILED_LINE)]
