"""The verdict of a diagnosis: one code from the course contract, and a message for the student.

The message is in the learner's language (``autograder.i18n``), written when the judge runs; the
code never is.  Nothing here parses the English: the words that join problems ("Also:") and name
the case a mistake showed in (``SEEN_WITH``) are looked up in the catalogue when they are written,
and read back (``strip_case``, ``names_a_case``, ``display.problems``) in the language current then.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .i18n import N_, _, pgettext

#: The case a mistake showed in, after the message: one template, so that ``strip_case`` can find it
#: again in any language.  ``{message}`` comes first in every translation.
# i18n: {case} describes the inputs a check used ("a linear model with MSE loss, SGD, ...").
SEEN_WITH = N_("{message} (seen with {case}).")

# The codes of the lesson 3 exercises, in the order of the contract's table.  Lessons may add
# their own codes; ``ok`` always means correct and is the only code that passes.
LESSON3_CODES = (
    "ok",
    "clears_after_step",
    "never_clears",
    "clears_once",
    "clears_after_backward",
    "clears_every_micro_batch",
    "clears_some_params",
    "loss_not_scaled",
    "steps_every_micro_batch",
    "no_backward",
    "no_step",
    "no_clear",
    "update_tracked",
    "wrong_update",
    "wrong_gradient",
    "error",
    "timeout",
    "tampered",
)


def returned_kind(type_name: str | None) -> str:
    """What a function returned, in words: "None (no return statement?)", "a list", "a Tensor".

    English chooses "a" or "an" by the type's first letter; each is a whole msgid of its own, so a
    language without that rule translates both the same way ("um objeto {type}")."""
    if type_name in (None, "NoneType"):
        return _("None (no return statement?)")
    if type_name[:1].lower() in "aeiou":
        # i18n: what a function returned, a Python type name: "an int", "an ndarray"
        return pgettext("returned kind", "an {type}").format(type=type_name)
    # i18n: what a function returned, a Python type name: "a list", "a Tensor"
    return pgettext("returned kind", "a {type}").format(type=type_name)


@dataclass(frozen=True)
class Verdict:
    """What the grader concluded about one function."""

    exercise: str
    code: str
    message: str
    #: Why a person should look at this verdict, when the grader could not decide it from the
    #: student's code alone (a run that ended before every case was checked, a record it could not
    #: read, a judge that hit its limits).  Empty when the verdict stands on its own.
    review: str = ""

    @property
    def passed(self) -> bool:
        return self.code == "ok"

    def as_dict(self, file: str | None = None) -> dict:
        row = {} if file is None else {"file": file}
        row.update(exercise=self.exercise, passed=self.passed, code=self.code, message=self.message)
        return row

    def to_json(self, file: str | None = None) -> str:
        return json.dumps(self.as_dict(file), ensure_ascii=False)


def first_failure(exercise: str, scenarios: list, observations: list[dict], judge_one, ok_message: str) -> Verdict:
    """The verdict over several scenarios judged one by one by ``judge_one(scenario, observation)``,
    which returns the mistakes that scenario shows (a Verdict, a list of them, or None).

    Every scenario is judged, and every mistake is named once, in the order of the exercise's table
    of codes (``autograder/codes.py``: the most important first, and that one names the verdict),
    each with the scenario it showed in.  One function can make several mistakes, each showing in
    another scenario (a mode not restored only when the model started in eval mode, a value wrong
    in every one): a student who reads only the first would meet the next one on the next run."""
    found: dict[str, tuple[Verdict, object]] = {}
    for scenario, observation in zip(scenarios, observations):
        verdicts = judge_one(scenario, observation)
        for verdict in [verdicts] if isinstance(verdicts, Verdict) else verdicts or []:
            found.setdefault(verdict.code, (verdict, scenario))
    if not found:
        return Verdict(exercise, "ok", ok_message)
    named = [
        Verdict(exercise, v.code, _seen_with(v.message, scenario, len(scenarios))) for v, scenario in found.values()
    ]
    return together(exercise, named)


def together(exercise: str, verdicts: list[Verdict], also: str | None = None, keep_order: bool = False) -> Verdict:
    """Several mistakes as one verdict: each code once, the most important first (it names the
    verdict), in the order of the exercise's table of codes (or as given, with ``keep_order``).

    Each mistake after the first starts with ``also`` (by default "Also:" in today's language, which
    ``display.problems`` splits on) and a lower-case letter."""
    also = _("Also:") if also is None else also
    first, *others = verdicts if keep_order else sorted(verdicts, key=lambda v: code_rank(exercise, v.code))
    texts = [first.message, *(f"{also} {v.message[0].lower()}{v.message[1:]}" for v in others)]
    review = next((v.review for v in [first, *others] if v.review), "")
    return Verdict(exercise, first.code, " ".join(texts), review=review)


def code_rank(exercise: str, code: str) -> int:
    """Where ``code`` stands in the exercise's table of codes (``autograder/codes.py``): the earlier,
    the more important.  A code the table does not list (the shared ``error`` of the exercises whose
    table leaves it out) comes after the listed ones."""
    order = _table(exercise)
    return order.index(code) if code in order else len(order)


def listed(exercise: str, code: str) -> bool:
    """Does the exercise's table of codes order ``code`` among its own?  (Lesson 3's lists ``error``
    after the clearing mistakes; the other exercises' tables leave the shared codes out.)"""
    return code in _table(exercise)


def _table(exercise: str) -> list[str]:
    from .codes import MEANINGS

    return list(MEANINGS.get(exercise, {}))


def _seen_with(message: str, scenario, n_scenarios: int) -> str:
    """The message with the case it showed in, when there were several and the message does not
    name it already."""
    name = getattr(scenario, "name", None)
    if n_scenarios < 2 or not isinstance(name, str) or name in message:
        return message
    return seen_with(message, name)


def seen_with(message: str, case: str) -> str:
    """``message`` with the case it showed in after it (``SEEN_WITH``, in today's language)."""
    return _(SEEN_WITH).format(message=message.rstrip().rstrip("."), case=case)


def _case_suffix() -> tuple[str, str, str]:
    """The translated ``SEEN_WITH`` around its fields: what comes before the message (nothing in
    English), between the message and ``{case}`` (" (seen with "), and after it (").")."""
    head, _message, rest = _(SEEN_WITH).partition("{message}")
    before, _case, after = rest.partition("{case}")
    return head, before, after


def names_a_case(message: str) -> bool:
    """Does ``message`` already name the case it showed in (its words "seen with", in today's language)?"""
    _head, before, _after = _case_suffix()
    marker = before.strip().lstrip("([").strip()
    return bool(marker) and marker in message


def strip_case(message: str) -> str:
    """``message`` without the case it showed in at its end: "X (seen with a linear model, SGD)." is
    "X.".  The suffix is found from ``SEEN_WITH`` in today's language (a case's own words may hold one
    level of parentheses); a message without it comes back stripped of surrounding space only.

    The feedback page shows the fix without the case (``grading.feedback.split_fix``)."""
    text = message.strip()
    head, before, after = _case_suffix()
    if not before.strip() or not after.strip():
        return text  # a translation that does not put the case after the message
    close = re.escape(after.rstrip(".").strip())
    pattern = rf"\s*{re.escape(before.strip())}\s*[^()]*(\([^()]*\)[^()]*)*{close}\.?$"
    stripped = re.sub(pattern, ".", text)
    if head and stripped != text and stripped.startswith(head):
        stripped = stripped[len(head) :]  # the template's own opening words, around the message
    return stripped
