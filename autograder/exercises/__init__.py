"""The graded exercises, one module per exercise, found by name in this package.

Each module defines:

* ``NAME``: the function the student writes (also the solution cell's grade id);
* ``suite(start, seed) -> list``: the scenarios of one check (frozen, picklable descriptions);
* ``run(fn, scenario) -> dict``: executed where the student's code runs (sandbox or forked
  child); returns a record made only of tensors, numbers, strings, lists, dicts and None;
* ``judge(scenarios, observations) -> Verdict``: executed by the grader in its own process,
  from the records alone;
* optionally ``LEAF_IN_PLACE``/``MESSAGES["leaf_in_place"]`` or ``explain_error(error) ->
  Verdict | None`` to turn an exception into one of the exercise's own codes.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def _discover() -> dict[str, ModuleType]:
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "judge"):
            found[module.NAME] = module
    return found


EXERCISES: dict[str, ModuleType] = _discover()


def get(name: str) -> ModuleType:
    try:
        return EXERCISES[name]
    except KeyError:
        known = ", ".join(sorted(EXERCISES))
        raise KeyError(f"unknown exercise {name!r}; the exercises are: {known}") from None
