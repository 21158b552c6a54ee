"""The graded exercises.  Each module has NAME, ``run(fn, scenario) -> dict`` (executed where
the student's code runs) and ``judge(scenarios, observations) -> Verdict`` (executed by the
grader in its own process, from the records alone)."""

from __future__ import annotations

from types import ModuleType

from . import manual_sgd_step, train_accumulated, train_step

EXERCISES: dict[str, ModuleType] = {m.NAME: m for m in (train_step, train_accumulated, manual_sgd_step)}


def get(name: str) -> ModuleType:
    try:
        return EXERCISES[name]
    except KeyError:
        known = ", ".join(sorted(EXERCISES))
        raise KeyError(f"unknown exercise {name!r}; the exercises are: {known}") from None
