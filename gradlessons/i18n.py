"""The explorers' and figures' text in the learner's language.

The language itself is ``gradebox.i18n``'s (one setting for the self-check, the grader and the
explorers: a Portuguese lesson's ``install`` cell calls ``use_language("pt_BR")`` once).  This module
only holds this package's own catalogue, ``gradlessons/_locale/<lang>/LC_MESSAGES/gradlessons.mo``.
It imports the job-side package, not the grader: a grading kernel imports the lessons' helpers, and
only ``gradebox`` is on its file system.
"""

from __future__ import annotations

import os

from gradebox.i18n import LANGUAGES, N_, Messages, language, speaking, use_language

__all__ = ["LANGUAGES", "N_", "_", "language", "ngettext", "npgettext", "pgettext", "speaking", "use_language"]

MESSAGES = Messages("gradlessons", os.path.join(os.path.dirname(os.path.abspath(__file__)), "_locale"))
_ = MESSAGES.gettext
pgettext = MESSAGES.pgettext
ngettext = MESSAGES.ngettext
npgettext = MESSAGES.npgettext
