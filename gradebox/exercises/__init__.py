"""The job side of the graded exercises: their registry, and the helpers their scenarios share.

Each exercise is a folder of ``gradexercises`` (see there); its job side, ``gradexercises/<name>/job.py``,
defines:

* ``NAME``: the function the student writes (also the solution cell's grade id);
* ``suite(start, seed) -> list``: the scenarios of one check (frozen, picklable descriptions);
* ``run(fn, scenario) -> dict``: executed where the student's code runs (a sandboxed job, or a
  child of the student's own kernel); returns a record made only of tensors, numbers, strings,
  lists, dicts and None: what the function returned, the final state of what it was given, and
  what the instrumentation saw.

This package holds what several exercises' job sides share (``_lesson1`` ... ``_lesson4``, ``_rng``)
and knows nothing of the right answers: each exercise's judge is ``gradexercises/<name>/judge.py``,
which the sandbox never binds.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import gradexercises


def type_name(value) -> str:
    """The name of a value's type, as a record holds it (a class name is the student's to choose)."""
    return type(value).__name__[:100]


def get(name: str) -> ModuleType:
    try:
        return EXERCISES[name]
    except KeyError:
        known = ", ".join(sorted(EXERCISES))
        raise KeyError(f"unknown exercise {name!r}; the exercises are: {known}") from None


# Every job side, imported now: a server preloads this package before its tamper watch is sealed,
# so no job imports an exercise's module while student code runs.  (Last in this module: each job
# side imports the helpers above.)
EXERCISES: dict[str, ModuleType] = {
    name: importlib.import_module(f"gradexercises.{name}.job") for name in gradexercises.EXERCISES
}
