"""The graded exercises, one module per exercise, found by name in this package.

Each module defines:

* ``NAME``: the function the student writes (also the solution cell's grade id);
* ``suite(start, seed) -> list``: the scenarios of one check (frozen, picklable descriptions);
* ``run(fn, scenario) -> dict``: executed where the student's code runs (a sandboxed job, or a
  child of the student's own kernel); returns a record made only of tensors, numbers, strings,
  lists, dicts and None: what the function returned, the final state of what it was given, and
  what the instrumentation saw.

This package is the job's side: it builds scenarios and runs them, and knows nothing of the
right answers.  Each exercise's judge (its references, its verdicts) is ``autograder.judge.<name>``,
in the grader, where no student code runs.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def type_name(value) -> str:
    """The name of a value's type, as a record holds it (a class name is the student's to choose)."""
    return type(value).__name__[:100]


def _discover() -> dict[str, ModuleType]:
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            found[module.NAME] = module
    return found


EXERCISES: dict[str, ModuleType] = _discover()


def get(name: str) -> ModuleType:
    try:
        return EXERCISES[name]
    except KeyError:
        known = ", ".join(sorted(EXERCISES))
        raise KeyError(f"unknown exercise {name!r}; the exercises are: {known}") from None
