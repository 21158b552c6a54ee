"""Showing the error a line of PyTorch raises, in one printed line.

The lessons show several errors on purpose (an integer tensor that cannot require grad, a second
``backward()`` through a freed graph, ...). A ``try``/``except`` around each would cost a beginner
three lines of reading that teach nothing about autograd, so the lessons call ``show_error``.
"""

from __future__ import annotations

from collections.abc import Callable

from gradlessons.i18n import _


def error_line(action: Callable[[], object]) -> str | None:
    """Run ``action()``; return ``"ErrorType: first sentence of the message"``, or None if it raised nothing."""
    try:
        action()
    except Exception as err:  # any error is what the lesson wants to show
        message = str(err).strip().splitlines()[0] if str(err).strip() else ""
        # PyTorch's messages often add hints after the first sentence: the first one says what went wrong.
        first, dot, _rest = message.partition(". ")
        return f"{type(err).__name__}: {first}{dot.strip()}"
    return None


def show_error(action: Callable[[], object]) -> None:
    """Print the error ``action()`` raises (see ``error_line``), or ``no error`` in the learner's language
    (PyTorch's own message stays as PyTorch wrote it)."""
    # i18n: printed when the line a lesson expected to fail ran without an error
    print(error_line(action) or _("no error"))
