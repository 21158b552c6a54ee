"""The verdict of a diagnosis: one code from the course contract, and a message for the student."""

from __future__ import annotations

import json
from dataclasses import dataclass

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
    """What a function returned, in words: "None (no return statement?)", "a list", "a Tensor"."""
    if type_name in (None, "NoneType"):
        return "None (no return statement?)"
    return f"an {type_name}" if type_name[:1].lower() in "aeiou" else f"a {type_name}"


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


def together(exercise: str, verdicts: list[Verdict], also: str = "Also:", keep_order: bool = False) -> Verdict:
    """Several mistakes as one verdict: each code once, the most important first (it names the
    verdict), in the order of the exercise's table of codes (or as given, with ``keep_order``)."""
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
    return f"{message.rstrip().rstrip('.')} (seen with {name})."
