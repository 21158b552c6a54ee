"""The quick checks: one multiple-choice answer, right or wrong, with a why or a hint.

They run wherever a test cell runs, the same way: in a student's own kernel and in a grading
kernel (nbgrader scores the cell by whether it raised), so they live on the job side, with their
key (``quizzes/<lesson>.json``).  The key stores only hashes, so reading the package does not hand
out the answers at a glance; the why and the hint are English in the JSON, in the learner's
language where they are shown (``course_i18n`` puts each in the ``gradebox`` template under its
context, ``quiz_context``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os

from .display import wrapped
from .i18n import _, pgettext
from .not_yet import NotYet

QUIZ_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "quizzes")


def _answer_hash(assignment: str, question: str, answer: str) -> str:
    return hashlib.sha256(f"{assignment}:{question}:{answer}".encode()).hexdigest()


@functools.cache
def known_quizzes() -> frozenset[str]:
    """The assignments whose quick-check keys ship with the package (quizzes/<assignment>.json)."""
    return frozenset(name.removesuffix(".json") for name in os.listdir(QUIZ_DIR) if name.endswith(".json"))


def load_quiz(assignment: str) -> dict:
    """The key of one assignment's quick checks.  ``assignment`` is read from a notebook's cell, so it
    only ever picks one of the keys the package ships: never a path (the grader reads this too, and a
    name like ``../../home/student/x`` would have it open a file a student can write)."""
    if assignment not in known_quizzes():
        raise FileNotFoundError(f"no quick check is known for {assignment!r}")
    with open(os.path.join(QUIZ_DIR, f"{assignment}.json"), encoding="utf-8") as f:
        return json.load(f)


def quiz_context(assignment: str, question: str, part: str) -> str:
    """The catalogue's context of a quick check's ``why`` or ``hint``: the JSON stays English, and
    ``course_i18n`` puts each text in the ``gradebox`` template under this context."""
    return f"quiz:{assignment}:{question}:{part}"


def quiz_text(assignment: str, question: str, part: str, english: str) -> str:
    """A quick check's ``why`` or ``hint`` in the learner's language."""
    return pgettext(quiz_context(assignment, question, part), english)


def _say(text: str) -> None:
    """Print ``text`` wrapped at word boundaries (Jupyter would break a long line inside a word)."""
    print("\n".join(wrapped(text, indent="")))


def check_quiz(assignment: str, question: str, answer) -> None:
    """Check one multiple-choice answer (a letter such as "b").  The quick checks are formative:
    this self-check tells right from wrong, so they carry no points."""
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
