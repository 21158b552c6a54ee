"""The grader's own catalogue, in the learner's language.

Which language that is, and the machinery (``speaking``, ``use_language``, ``Messages``, the
editions), is the job side's, ``gradebox.i18n``: one setting for the grader, the job-side package
and the lessons' helpers.  This module re-exports it for the grader's modules and for the notebooks
(a Portuguese lesson's ``install`` cell says ``from autograder.i18n import use_language``; in a
grading kernel that name is ``gradebox.i18n`` itself, see ``gradebox.jobs.standins``), and holds the
catalogue of what only the grader writes (verdicts, the report, the feedback page, the CLI), the
``autograder`` domain, compiled into ``autograder/_locale/<lang>/LC_MESSAGES/autograder.mo``.
"""

from __future__ import annotations

import os

from gradebox.i18n import (
    EDITION_SUFFIXES,
    ENGLISH,
    LANGUAGES,
    N_,
    Messages,
    checked,
    edition_of,
    editions,
    language,
    speaking,
    translation,
    use_language,
)
from gradebox.i18n import MESSAGES as GRADEBOX_MESSAGES

__all__ = ["EDITION_SUFFIXES", "ENGLISH", "LANGUAGES", "LOCALE_DIR", "MESSAGES", "Messages", "N_", "_", "checked",
           "edition_of", "editions", "language", "ngettext", "npgettext", "pgettext", "speaking", "translation",
           "use_language"]  # fmt: skip

LOCALE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_locale")
# What the grader shows of the job side's text (a verdict's mark, a scenario's words, a failed
# cell's line) is in gradebox's catalogue: looked up there when this one lacks it.
MESSAGES = Messages("autograder", LOCALE_DIR, also=GRADEBOX_MESSAGES)
_ = MESSAGES.gettext
pgettext = MESSAGES.pgettext
ngettext = MESSAGES.ngettext
npgettext = MESSAGES.npgettext
