# ruff: noqa: E501 - one meaning per line, as the tables of docs/codes.md show them
"""What each diagnosis code means, in words, and the lesson section a student who got it should
read again: for the class report (what to teach next) and the code tables of docs/codes.md, which
``python3 course.py sync`` writes from here.

``MEANINGS[exercise]`` lists the codes of an exercise as its declaration gives them
(``gradexercises/<exercise>/__init__.py``; the three lesson 3 exercises share the contract's table,
``gradexercises/_lesson3.py``); ``SHARED`` holds
the codes every exercise can end with, including the two error names a test cell ends with when
the notebook was stopped (``NotRun``, ``KernelStopped``): the report lists those, ``unanswered``,
``error`` and ``timeout`` as "not judged", apart from the misconceptions.  ``REVISIT[exercise]`` names a lesson section (its heading,
without the ``## ``) per code, with ``""`` for the section of the exercise's default; a test
checks every heading against the lesson notebooks, so renaming a section cannot leave the report
pointing at nothing.  Pure data: ``course.py`` reads it without torch.

The meanings are English here (the report and docs/codes.md read them so), each marked ``N_`` for
the ``autograder`` catalogue; ``in_words``, what a learner reads under a ❌, says them in the
learner's language (``autograder.i18n``).  The headings of ``REVISIT`` stay English for now.
"""

from __future__ import annotations

import json
import os
import re
from functools import cache

from gradexercises import EXERCISES, FOLDER

try:
    from .i18n import N_, _
except ImportError:  # course.py loads this file by path, as plain data outside the package: English only

    def N_(message: str) -> str:
        return message

    _ = N_

# One meaning per line, as docs/codes.md shows them.
# fmt: off
SHARED = {
    "ok": N_("correct"),
    "unanswered": N_("the answer cell was left as it was handed out"),
    "error": N_("the function raised, or the process running it died"),
    "timeout": N_("it did not finish within the time limit"),
    "tampered": N_("the code changed torch, the optimizer or the grader's own tools"),
    "NotRun": N_("not judged: a limit (output, memory, time) or a crash stopped the notebook before this test cell, and the grader had no verdict for it (the grading notes say what stopped it)"),
    "KernelStopped": N_("not judged: a limit or a crash stopped the notebook in this test cell (the grading notes say which)"),
}

# fmt: on

# Each exercise's own table and sections, from its declaration (gradexercises/<name>/__init__.py).
MEANINGS: dict[str, dict[str, str]] = {name: dict(e.codes) for name, e in EXERCISES.items()}
REVISIT: dict[str, dict[str, str]] = {name: dict(e.revisit) for name, e in EXERCISES.items()}


def meaning(exercise: str, code: str) -> str:
    """The code's meaning in words ("" for a code nobody documented: a test keeps that from happening)."""
    return MEANINGS.get(exercise, {}).get(code) or SHARED.get(code, "")


def named_codes(exercise: str, text: str, own: str = "") -> list[str]:
    """The codes of ``exercise`` (or shared ones) that ``text`` names in backticks, other than ``own``:
    a meaning that says "also what a fresh start shows for `clears_once`" names a code the reader
    may not have met yet."""
    known = {**SHARED, **MEANINGS.get(exercise, {})}
    found = []
    for name in re.findall(r"`([A-Za-z_]+)`", text):
        if name in known and name != own and name not in found:
            found.append(name)
    return found


# i18n: joins a code's meaning to the meaning of another code it names ("...; `clears_once` means: ...")
MEANS = N_("`{code}` means: {meaning}")


def _english(message: str) -> str:
    return message


def explained(exercise: str, code: str, say=_english) -> str:
    """The code's meaning, followed by the meaning of every other code it names, so that each code
    shown is explained where it appears ("...; `clears_once` means: clears once before the loop ...").
    ``say`` puts a meaning into the reader's language: English (the report) unless told."""
    words = meaning(exercise, code)
    # The codes a meaning names are read from the English table: a translation keeps them as they are.
    others = [
        say(MEANS).format(code=name, meaning=say(meaning(exercise, name)))
        for name in named_codes(exercise, words, code)
    ]
    return "; ".join([say(words), *others])


def in_words(exercise: str, code: str) -> str:
    """``explained`` for a documented code in the learner's language, "" for any other (an error's
    name): what a verdict's ``[code]`` is shown with, wherever a verdict is shown."""
    return explained(exercise, code, say=_) if meaning(exercise, code) else ""


def revisit(exercise: str, code: str) -> str:
    """The heading of the lesson section to read again after getting ``code`` in ``exercise``."""
    sections = REVISIT.get(exercise, {})
    return sections.get(code) or sections.get("", "")


def _notebook_check(exercise) -> str:
    """How a test cell checks the exercise: its own check function, or ``check`` by name."""
    if exercise.check:
        starts = " or ".join(f"`{s}`" for s in exercise.starts)
        return f"`{exercise.check}({exercise.name})`" + (f" (start {starts})" if starts else "")
    return f'`check("{exercise.name}", {exercise.name})`'


def _place_in_lesson(exercise) -> int:
    """Where the exercise's solution cell stands in its lesson's source notebook (found beside the
    exercises in a clone; elsewhere every exercise stands last, in the order of their names)."""
    ids = _grade_ids(exercise.lesson)
    return ids.index(exercise.name) if exercise.name in ids else 1 << 30


@cache
def _grade_ids(lesson: str) -> list:
    """The grade id of every cell of a lesson's source notebook, in order (none outside a clone)."""
    path = os.path.join(os.path.dirname(FOLDER), "notebooks", lesson, f"{lesson}.ipynb")
    if not os.path.isfile(path):
        return []
    with open(path, encoding="utf-8") as f:
        cells = json.load(f)["cells"]
    return [cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") for cell in cells]


def exercises_table() -> str:
    """The markdown table (docs/codes.md) of every declared exercise, in the order of the lessons:
    its lesson, signature, the call its test cells make, and the points of those cells."""
    rows = ["| exercise | lesson | signature | test cells call | points |", "| --- | --- | --- | --- | --- |"]
    ordered = sorted(EXERCISES.values(), key=lambda e: (e.lesson, _place_in_lesson(e), e.name))
    for exercise in ordered:
        name = exercise.name
        points = " + ".join(str(p) for p in exercise.points.values())
        rows.append(
            f"| `{name}` | `{exercise.lesson}` | `{exercise.signature}` | {_notebook_check(exercise)} | {points} |"
        )
    return "\n".join(rows)


def table(exercises: list[str]) -> str:
    """The markdown table (docs/codes.md) of the codes of ``exercises`` (one table when they share theirs);
    ``["shared"]`` gives the shared codes."""
    found = {e: SHARED if e == "shared" else MEANINGS[e] for e in exercises}
    one = len({tuple(codes.items()) for codes in found.values()}) == 1
    rows = ["| code | meaning |", "| --- | --- |"] if one else ["| exercise | code | meaning |", "| --- | --- | --- |"]
    for exercise in exercises[:1] if one else exercises:
        for code, words in found[exercise].items():
            rows.append(f"| `{code}` | {words} |" if one else f"| `{exercise}` | `{code}` | {words} |")
    return "\n".join(rows)
