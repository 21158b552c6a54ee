"""The graded exercises: one folder per exercise, and everything else finds them here.

An exercise is the folder ``gradexercises/<name>/``, with three files:

* ``__init__.py``, its declaration: ``EXERCISE = Exercise(...)`` (the lesson, the signature, the
  codes a verdict may end with and what each means, the lesson section to read again per code, the
  points of its test cells, and the notebook's own check function, if it has one).  Plain data,
  read without torch (``python3 course.py sync`` writes docs/codes.md from it);
* ``job.py``, the job side: ``suite(start, seed)`` (the scenarios of one check) and
  ``run(fn, scenario)`` (runs the student's function in one scenario, where the student's code
  runs, and returns plain data).  It may import ``gradebox`` and torch, never the grader;
* ``judge.py``, the grader side: ``judge(scenarios, observations)``, ``schema(scenario)`` and the
  references.  In grading it runs where no student code ever ran (the student's own self-check,
  which is not a grade, judges in the student's kernel).

Why one folder that straddles the trust boundary, rather than one half in each package: an author
adds or changes an exercise in one place, and every consumer discovers it from the declaration (the
CLI's ``diagnose``, the notebooks' self-check and its ``check_<name>`` functions, the score job's
reading of test cells, the class report, the code tables of the docs).  The boundary is kept by what
the sandbox binds: a job's file system holds this package's ``__init__.py`` files, its shared
declaration data (``SHARED_DECLARATIONS``: lesson 3's table of codes) and the ``job.py`` files, and
nothing else (``autograder/host/bwrap.py``), so no judge, no reference, is readable by
student code; ``tests/unit/gradebox/test_layers.py`` fails on any import from a job side into a
judge or into ``autograder``.

This module and the declarations import nothing but the standard library and each other.
"""

from __future__ import annotations

import importlib
import keyword
import os
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

LESSONS = ("lesson1_requires_grad", "lesson2_backward", "lesson3_zeroing_grad", "lesson4_no_grad")
CHECK_PARAMETERS = ("exercise", "fn", "start", "seed", "timeout")  # what a check takes besides the function
# The names the checks modules (autograder.checks, gradebox.outside_checks) define themselves.
TAKEN = ("check", "check_quiz", "outside", "load_quiz", "quiz_context", "quiz_text", "NotYet", "FAILED_LINE")
#: The shared files of this package a job may read: declaration data only.  A judge's shared helper
#: belongs in autograder/judge/, never here (every file listed is on a job's file system).
SHARED_DECLARATIONS = ("_lesson3.py",)
STARTS = ("fresh", "dirty")  # a fresh start (every .grad None), a dirty one (stale gradients left)


def N_(message: str) -> str:
    """Marks a meaning for the ``autograder`` catalogue (said in the learner's language when shown)."""
    return message


@dataclass(frozen=True)
class Exercise:
    """One graded exercise, as every part of the course knows it.

    ``codes`` lists the exercise's own codes, the most important first (a verdict that names several
    mistakes orders them so), each with its meaning in English marked ``N_``; the codes every
    exercise can end with (``error``, ``timeout``, ``tampered``, ...) are ``autograder.codes.SHARED``
    and need not be listed.  ``revisit`` names the lesson section (its heading without ``## ``) to
    read again per code; ``""`` is the default, the section that teaches what the exercise asks.
    ``points`` maps the grade id of each test cell that grades the exercise to its points.
    ``check`` is the name of the notebook's own check function (``check_train_step``), when it has
    one besides ``check("<name>", fn)``; ``starts`` the starts that check takes (none: the check
    takes no ``start``)."""

    name: str
    lesson: str
    signature: str
    codes: Mapping[str, str]
    revisit: Mapping[str, str]
    points: Mapping[str, int]
    check: str | None = None
    starts: tuple[str, ...] = field(default=STARTS)

    def __post_init__(self) -> None:
        problems = []
        if not self.name.isidentifier() or keyword.iskeyword(self.name):
            problems.append(f"its name {self.name!r} is not a Python name")
        elif self.name in CHECK_PARAMETERS:
            problems.append(f"its name {self.name!r} is a parameter of every check ({', '.join(CHECK_PARAMETERS)})")
        if self.lesson not in LESSONS:
            problems.append(f"its lesson {self.lesson!r} is none of {', '.join(LESSONS)}")
        if not self.signature.startswith(self.name + "("):
            problems.append(f"its signature {self.signature!r} does not start with {self.name}(")
        if not self.codes:
            problems.append("it lists no codes")
        if "" not in self.revisit:
            problems.append('its revisit has no default section (the key "")')
        unknown = sorted(set(self.revisit) - set(self.codes) - {""})
        if unknown:
            problems.append(f"revisit names codes it does not list: {', '.join(unknown)}")
        bad = [
            g for g, p in self.points.items() if not g.startswith(f"test_{self.name}") or type(p) is not int or p < 0
        ]
        if not self.points or bad:
            got = ", ".join(bad) or "none"
            problems.append(f"points need grade ids that start test_{self.name}, with whole points >= 0 (got {got})")
        if self.check is not None and (not self.check.isidentifier() or keyword.iskeyword(self.check)):
            problems.append(f"its check {self.check!r} is not a Python name")
        elif self.check in TAKEN:
            problems.append(f"its check {self.check!r} would replace the checks module's own {self.check}")
        if not set(self.starts) <= set(STARTS):
            problems.append(f"its starts {self.starts!r} are not among {STARTS}")
        if problems:
            raise ValueError(f"exercise {self.name!r}: " + "; ".join(problems))
        for name in ("codes", "revisit", "points"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))


FOLDER = os.path.dirname(os.path.abspath(__file__))


def _declarations() -> dict[str, Exercise]:
    found = {}
    for info in pkgutil.iter_modules([FOLDER]):
        if not info.ispkg or info.name.startswith("_"):
            continue
        declared = getattr(importlib.import_module(f"{__name__}.{info.name}"), "EXERCISE", None)
        if not isinstance(declared, Exercise) or declared.name != info.name:
            wanted = f"EXERCISE = Exercise(name={info.name!r}, ...)"
            raise ValueError(f"gradexercises/{info.name}/__init__.py must declare {wanted}")
        found[info.name] = declared
    return collect(found.values())


def collect(declared) -> dict[str, Exercise]:
    """The exercises by name; ``ValueError`` when two share a name or a check function (the second
    would silently replace the first in the checks modules and in the score job's reading)."""
    found: dict[str, Exercise] = {}
    for exercise in declared:
        if exercise.name in found:
            raise ValueError(f"two exercises are named {exercise.name!r}")
        other = next((e.name for e in found.values() if exercise.check and e.check == exercise.check), None)
        if other:
            raise ValueError(f"exercises {other!r} and {exercise.name!r} both declare the check {exercise.check!r}")
        found[exercise.name] = exercise
    return found


#: Every exercise, by name, in the order of the lessons and then of the folders.
EXERCISES: dict[str, Exercise] = dict(
    sorted(_declarations().items(), key=lambda item: (LESSONS.index(item[1].lesson), item[0]))
)


def declared(name: str) -> Exercise:
    """The declaration of exercise ``name``; ``KeyError`` naming the exercises there are."""
    try:
        return EXERCISES[name]
    except KeyError:
        known = ", ".join(sorted(EXERCISES))
        raise KeyError(f"unknown exercise {name!r}; the exercises are: {known}") from None


def job_side_files(folder: str = FOLDER) -> list[str]:
    """The files of this package a job's file system holds: the declarations and the job sides."""
    files = [os.path.join(folder, name) for name in ("__init__.py", *SHARED_DECLARATIONS)]
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not name.startswith("_") and os.path.isfile(os.path.join(path, "__init__.py")):
            files += [os.path.join(path, f) for f in ("__init__.py", "job.py") if os.path.isfile(os.path.join(path, f))]
    return files
