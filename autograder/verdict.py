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


def first_failure(
    exercise: str, scenarios: list, observations: list[dict], judge_one, ok_message: str, order: tuple[str, ...] = ()
) -> Verdict:
    """The verdict over several scenarios judged one by one by ``judge_one(scenario, observation)``,
    which returns a Verdict for a mistake or None.

    Without ``order``, the first scenario's mistake names the verdict.  With ``order`` (the
    exercise's codes, most important first), every scenario is judged, and the most important
    mistake names the verdict while the message also names the others: one function can make
    several mistakes, each showing in another scenario (a mode not restored only when the model
    started in eval mode, a tensor returned in every scenario)."""
    found: dict[str, Verdict] = {}
    for scenario, observation in zip(scenarios, observations):
        verdict = judge_one(scenario, observation)
        if verdict is not None:
            if not order:
                return verdict
            found.setdefault(verdict.code, verdict)
    if not found:
        return Verdict(exercise, "ok", ok_message)
    rank = {code: i for i, code in enumerate(order)}
    first, *others = sorted(found.values(), key=lambda v: rank.get(v.code, len(rank)))
    also = [f"Also: {v.message[0].lower()}{v.message[1:]}" for v in others]
    return Verdict(exercise, first.code, " ".join([first.message, *also]))
