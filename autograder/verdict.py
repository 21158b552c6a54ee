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


@dataclass(frozen=True)
class Verdict:
    """What the grader concluded about one function."""

    exercise: str
    code: str
    message: str

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
    """The verdict over several scenarios judged one by one: the first scenario whose
    ``judge_one(scenario, observation)`` returns a Verdict names the mistake; if none does, ok."""
    for scenario, observation in zip(scenarios, observations):
        verdict = judge_one(scenario, observation)
        if verdict is not None:
            return verdict
    return Verdict(exercise, "ok", ok_message)
