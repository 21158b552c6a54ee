"""How a verdict or a quick-check answer is shown to a student, in a notebook, the graded copy and
the feedback page: the mark with the result in words beside it (a screen without an emoji font
shows ✅ and ❌ as empty boxes), then one problem per line, wrapped at word boundaries.

Plain text functions of the job side: the quick checks in a grading kernel use them too, where the
grader's package is not on the file system.  Their words are in the learner's language
(``gradebox.i18n``, this package's catalogue), looked up when a verdict is shown."""

from __future__ import annotations

import re
import textwrap

from . import i18n
from .i18n import N_, _

#: Words beside the marks: a screen without an emoji font shows ✅ and ❌ as empty boxes.  Marked
#: here, translated where they are shown.
# i18n: beside ✅ after an exercise's name: "✅ train_step: passed"
PASSED = N_("passed")
# i18n: beside ❌ after an exercise's name and its code: "❌ train_step [never_clears]: not passed yet"
NOT_PASSED = N_("not passed yet")
#: Where a diagnosis is wrapped.  Jupyter's output area breaks a long line anywhere, even inside a
#: word; lines this short fit a notebook in JupyterLab, Colab and the feedback page unbroken.
WIDTH = 88


def problems(message: str) -> list[str]:
    """The problems a message names, one each (the first, then every "Also: ..." after it).
    ``verdict.together`` joins them with "Also:" in the language the verdict was written in: today's,
    or another edition's (a graded copy keeps the English beside the learner's), so every edition's
    joiner splits."""
    joiners = "|".join(re.escape(joiner) for joiner in _joiners())
    next_problem = re.compile(rf"\s+(?=(?:{joiners}) )")  # where one problem ends, the next begins
    return [part.strip() for part in next_problem.split(message.strip()) if part.strip()]


def _joiners() -> list[str]:
    """ "Also:" in today's language and in every edition's, looked up now (the catalogues are cached)."""
    found = [_("Also:")]
    for language in i18n.LANGUAGES:
        with i18n.speaking(language):
            found.append(_("Also:"))
    return sorted(set(found), key=len, reverse=True)


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
        head = f"✅ {exercise}: {_(PASSED)}"
    else:
        head = f"❌ {exercise} [{code}]: {_(NOT_PASSED)}"
    parts = problems(message)
    if fix_label and parts and not passed:
        parts[0] = f"{fix_label} {parts[0]}"
    lines = [head, *(line for part in parts for line in wrapped(part))]
    return lines if passed else lines + meaning_lines(code, meaning)


def meaning_lines(code: str, meaning: str) -> list[str]:
    """The code in words ("never_clears means: gradients pile up ..."), wrapped; nothing without one."""
    if not meaning:
        return []
    # i18n: {code} is a diagnosis code such as never_clears, kept in English; {meaning} says what it means
    return wrapped(_("{code} means: {meaning}").format(code=code, meaning=meaning.replace("`", "")))
