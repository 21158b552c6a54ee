"""An exercise's messages by key, each written in the learner's language when it is read.

A judge's table of messages (``MESSAGES``) is built at import, but the language is known only when a
verdict is written (``autograder.i18n``: the grader speaks the language of the submission it judges).
So each entry is a function of no argument that looks its text up in the catalogue
(``lambda: pgettext("derivative:ok", "Correct: ...")``: the exercise and key as the context, so the
same English may be translated differently in two exercises), and reading the table calls it:
``MESSAGES["wrong_value"].format(got=...)`` reads as it did when the entries were plain strings.
"""

from __future__ import annotations

from collections.abc import Callable


class Texts(dict[str, Callable[[], str]]):
    """``{key: lambda: pgettext(...)}`` whose reads (``[key]``, ``get``, ``items``, ``values``) give the text."""

    def __getitem__(self, key: str) -> str:
        return super().__getitem__(key)()

    def get(self, key: str, default: str | None = None) -> str | None:
        return self[key] if key in self else default

    def values(self) -> list[str]:
        return [self[key] for key in self]

    def items(self) -> list[tuple[str, str]]:
        return [(key, self[key]) for key in self]
