"""How a verdict or a quick-check answer is shown to a student, in a notebook, the graded copy and
the feedback page: the mark with the result in words beside it (a screen without an emoji font
shows ✅ and ❌ as empty boxes), then one problem per line, wrapped at word boundaries.

Plain text functions with no imports from the grader: the self-check in a grading kernel uses them
too, where the judge and ``verdict.py`` are hidden."""

from __future__ import annotations

import re
import textwrap

#: Words beside the marks: a screen without an emoji font shows ✅ and ❌ as empty boxes.
PASSED = "passed"
NOT_PASSED = "not passed yet"
#: Where a diagnosis is wrapped.  Jupyter's output area breaks a long line anywhere, even inside a
#: word; lines this short fit a notebook in JupyterLab, Colab and the feedback page unbroken.
WIDTH = 88
# Where one problem ends and the next begins: ``together`` joins them with "Also:".
_NEXT_PROBLEM = re.compile(r"\s+(?=Also: )")


def problems(message: str) -> list[str]:
    """The problems a message names, one each (the first, then every "Also: ..." after it)."""
    return [part.strip() for part in _NEXT_PROBLEM.split(message.strip()) if part.strip()]


def wrapped(text: str, indent: str = "   ", width: int = WIDTH) -> list[str]:
    """``text`` wrapped at word boundaries (never inside a word, a path or a hyphenated name), each line
    indented; a word longer than the width keeps a line of its own."""
    options = {"break_long_words": False, "break_on_hyphens": False}
    lines = textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent + "  ", **options)
    return lines or [indent.rstrip()]


def shown_lines(
    exercise: str, code: str, passed: bool, message: str, fix_label: str = "", meaning: str = ""
) -> list[str]:
    """A verdict as a student reads it: a head line with the mark and the result in words, then each
    problem on its own lines, wrapped at word boundaries.  ``fix_label`` ("To fix:") goes before the
    first problem; ``meaning`` (``codes.in_words``) says what the ``[code]`` of the head line means,
    last, so that no code is shown unexplained (Markdown's backticks dropped: this is plain text)."""
    if passed:
        head = f"✅ {exercise}: {PASSED}"
    else:
        head = f"❌ {exercise} [{code}]: {NOT_PASSED}"
    parts = problems(message)
    if fix_label and parts and not passed:
        parts[0] = f"{fix_label} {parts[0]}"
    lines = [head, *(line for part in parts for line in wrapped(part))]
    return lines if passed else lines + meaning_lines(code, meaning)


def meaning_lines(code: str, meaning: str) -> list[str]:
    """The code in words ("never_clears means: gradients pile up ..."), wrapped; nothing without one."""
    return wrapped(f"{code} means: {meaning.replace('`', '')}") if meaning else []
