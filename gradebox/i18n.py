"""Which language a learner reads, and the catalogues that say it in that language.

The course has two editions, English and Brazilian Portuguese (issue 37).  Only *text* follows the
language: codes, ``passed``, points, scenarios and seeds never do, so the same answers score the same
in both editions.

Where the language comes from, in order:
- ``speaking(lang)``: a context the grader opens around one submission (a ``contextvars`` value, so
  two submissions judged in one process never see each other's language);
- ``use_language(lang)``: what a Portuguese lesson's generated ``install`` cell calls once, for the
  self-check and the explorers in the learner's kernel;
- otherwise English.  The environment (``LANG``, ``LC_ALL``) is never read: the sandbox forces
  ``C.UTF-8`` and Colab says ``en_US`` whatever the learner reads.

Every value is checked against ``LANGUAGES`` before it goes near a path: ``gettext`` builds a file
name from it, and a submission's metadata is hostile (``"../../x"`` would load any ``.mo``).

The catalogues are compiled gettext ``.mo`` files under ``<package>/_locale/<lang>/LC_MESSAGES/``,
written by ``python3 course.py sync`` from ``locale/<lang>/LC_MESSAGES/*.po`` (the one source).  At
run time only the standard library's ``gettext`` is used, so Colab needs nothing new.  Each package
makes its own ``Messages(domain)`` and marks its strings with its ``_``, ``pgettext`` and ``ngettext``;
a module-level table is marked with ``N_`` and translated where it is used.

The language lives here, in the job-side package, so that there is one setting for every side:
the job-side texts (``gradebox``'s own catalogue, below: the exercises' scenario words, the quick
checks, how a verdict is shown, what a grading kernel's check prints), the grader's
(``autograder.i18n``, which takes the machinery from here) and the lessons' helpers
(``gradlessons.i18n``).  ``gradebox/_locale`` is mounted in a job with the rest of the package.
"""

from __future__ import annotations

import contextvars
import gettext
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

ENGLISH = "en"
LANGUAGES = (ENGLISH, "pt_BR")  # the editions; the only values that ever reach gettext
LOCALE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_locale")

# The editions beside English: a lesson's edition is an assignment of its own, ``<lesson><suffix>``
# (course.py's EDITIONS says the same for the authors' side).
EDITION_SUFFIXES = {"pt_BR": "_pt_br"}


def edition_of(assignment: str) -> tuple[str, str]:
    """(the English lesson, the language) of an assignment id, from the fixed suffixes only:
    ``lesson3_zeroing_grad_pt_br`` -> (``lesson3_zeroing_grad``, ``pt_BR``); anything else is English."""
    for lang, suffix in EDITION_SUFFIXES.items():
        if isinstance(assignment, str) and assignment.endswith(suffix) and len(assignment) > len(suffix):
            return assignment[: -len(suffix)], lang
    return assignment, ENGLISH


def editions(lesson: str) -> list[str]:
    """Every assignment id of ``lesson``: the English one first."""
    return [lesson, *(lesson + suffix for suffix in EDITION_SUFFIXES.values())]


_speaking: contextvars.ContextVar[str | None] = contextvars.ContextVar("autograd_course_language", default=None)
_chosen = ENGLISH  # what use_language() set for this process (a learner's kernel)


def checked(value: object) -> str | None:
    """``value`` if it names an edition's language, else ``None`` (never raises: it may be hostile)."""
    return value if isinstance(value, str) and value in LANGUAGES else None


def use_language(value: str) -> None:
    """Make ``value`` this process's language: what a lesson's ``install`` cell calls."""
    if checked(value) is None:
        raise ValueError(f"unknown language {value!r}: the course speaks {', '.join(LANGUAGES)}")
    global _chosen
    _chosen = value


def language() -> str:
    """The language text is written in right now."""
    return _speaking.get() or _chosen


@contextmanager
def speaking(value: object) -> Iterator[str]:
    """Write text in ``value`` inside the block (English if it is not an edition's language)."""
    chosen = checked(value) or ENGLISH
    token = _speaking.set(chosen)
    try:
        yield chosen
    finally:
        _speaking.reset(token)


@cache
def translation(
    domain: str, localedir: str, lang: str, also: tuple[str, str] | None = None
) -> gettext.NullTranslations:
    """The catalogue of ``domain`` in ``lang``, then ``also`` (another ``(domain, localedir)``) for a
    message it lacks; English (and a missing catalogue) translate nothing."""
    if lang == ENGLISH or checked(lang) is None:
        return gettext.NullTranslations()
    found = gettext.translation(domain, localedir, languages=[lang], fallback=True)  # a copy of its own
    if also is not None:
        found.add_fallback(translation(*also, lang))
    return found


def N_(message: str) -> str:
    """Mark ``message`` for the catalogue without translating it (a table translated where it is used)."""
    return message


class Messages:
    """One package's catalogue: ``_``, ``pgettext``, ``ngettext`` and ``npgettext`` in today's language.

    ``also``: another package's catalogue, for the messages this one shows but that package marks
    (the grader shows the job side's: a verdict's mark, a scenario's words, a failed cell's line)."""

    def __init__(self, domain: str, localedir: str = LOCALE_DIR, also: Messages | None = None) -> None:
        self.domain = domain
        self.localedir = localedir
        self.also = also

    def _catalogue(self) -> gettext.NullTranslations:
        also = (self.also.domain, self.also.localedir) if self.also is not None else None
        return translation(self.domain, self.localedir, language(), also)

    def gettext(self, message: str) -> str:
        return self._catalogue().gettext(message)

    def pgettext(self, context: str, message: str) -> str:
        return self._catalogue().pgettext(context, message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self._catalogue().ngettext(singular, plural, n)

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        return self._catalogue().npgettext(context, singular, plural, n)


MESSAGES = Messages("gradebox")
_ = MESSAGES.gettext
pgettext = MESSAGES.pgettext
ngettext = MESSAGES.ngettext
npgettext = MESSAGES.npgettext
