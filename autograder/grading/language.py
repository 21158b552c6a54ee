"""The language a submission's graded copy and feedback are written in: text only, never a score.

Two things may say it, both read as hostile data and checked against ``autograder.i18n.LANGUAGES``
before they go near a catalogue (``gettext`` builds a path from the value):
- the notebook's ``metadata.autograd_course.language``, which ``course.py sync`` writes into each
  edition's source and release (a learner who opened the Portuguese notebook hands it in in
  Portuguese, whichever assignment it is collected under);
- else the assignment's edition, from its id's fixed suffix (``lesson3_zeroing_grad_pt_br``).

Anything else (a missing field, ``"../../x"``, ``"de"``, a dict) means the assignment's edition, or
the language the caller already speaks (English unless it chose: a test's pseudo-language).

Neither reaches a code, ``passed``, points, a scenario or a seed: a hidden check's seed is derived
from the English lesson's id (``english_lesson``), so both editions of a lesson run the same hidden
scenarios and the same answers score the same.

The instructor's side (the class report, ``grade``'s class table) is written in one instructor
setting instead, ``AUTOGRADER_LANGUAGE`` (``instructor_language``): never a submission's
edition, and never guessed.  An unknown value stops ``report`` and ``grade`` before they start, with
the values allowed, rather than falling back to English unnoticed.
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import i18n
from ..i18n import ENGLISH, checked, edition_of, language
from ..settings import SETTINGS, SettingError


def assignment_of(resources: dict | None) -> str:
    info = (resources or {}).get("nbgrader", {})
    value = info.get("assignment", "") if isinstance(info, dict) else ""
    return value if isinstance(value, str) else ""


def english_lesson(assignment: str) -> str:
    """The English lesson an assignment is an edition of (itself when it is English)."""
    return edition_of(assignment)[0]


def learner_language(nb, resources: dict | None) -> str:
    """The language to write ``nb``'s graded copy and feedback in."""
    metadata = getattr(nb, "metadata", None)
    if metadata is None and isinstance(nb, dict):
        metadata = nb.get("metadata")
    course = metadata.get("autograd_course") if isinstance(metadata, dict) else None
    said = checked(course.get("language")) if isinstance(course, dict) else None
    edition = edition_of(assignment_of(resources))[1]
    # Neither says: the language already chosen around this run (English, unless a caller chose).
    return said or (edition if edition != ENGLISH else language())


def instructor_language(environ: Mapping[str, str] | None = None) -> str:
    """The language of the class report and ``grade``'s table: ``AUTOGRADER_LANGUAGE``, else English.

    A value that is not an edition's language is an error (``ValueError``) naming the allowed ones."""
    try:
        return SETTINGS.value("language", environ)
    except SettingError as error:
        (where, value, _), *_ = error.problems
        raise ValueError(f"{where}={value!r} is not a language of the course: set it to one of "
                         f"{', '.join(i18n.LANGUAGES)} (or leave it unset for {ENGLISH})") from None  # fmt: skip
