"""The notebooks' named check functions (``check_train_step(train_step, start="dirty")``), made from
the exercises' declarations rather than written out once per exercise in each place that has them.

A declaration (``gradexercises/<name>/__init__.py``) that names a ``check`` gets a function of that
name whose first parameter is the exercise's own function, named after it, then ``start`` (when the
exercise declares the starts its check takes), ``seed`` and ``timeout``.  Two modules build them
over a different body: the student's own self-check (``autograder.checks``: it judges) and a grading
kernel's stand-in (``gradebox.outside_checks``: it says the grader scores the check outside).  Their
signatures are the same by construction, and the score job reads a test cell's calls with the same
declarations (``autograder.grading.score.checks_in``).
"""

from __future__ import annotations

from collections.abc import Callable
from inspect import Parameter, Signature

from gradexercises import EXERCISES, Exercise

#: ``body(exercise, fn, start, seed, timeout)``: what a check does once its arguments are read.
Body = Callable[[str, object, str, int, "float | None"], None]


def signature(exercise: Exercise) -> Signature:
    """``(<name>, start="fresh", seed=0, timeout=None)``, without ``start`` if the check takes none."""
    keyword = Parameter.POSITIONAL_OR_KEYWORD
    parameters = [Parameter(exercise.name, keyword)]
    if exercise.starts:
        parameters.append(Parameter("start", keyword, default="fresh", annotation=str))
    parameters += [
        Parameter("seed", keyword, default=0, annotation=int),
        Parameter("timeout", keyword, default=None, annotation=float | None),
    ]
    return Signature(parameters, return_annotation=None)


def _doc(exercise: Exercise) -> str:
    text = f"Check ``{exercise.signature}`` in the grader's scenarios"
    if exercise.starts:
        text += (
            ' from a fresh start (``start="fresh"``: every ``.grad`` is None) or with stale gradients'
            ' left in the parameters before the first call (``start="dirty"``)'
        )
    return text + "; ``seed`` picks the scenarios, ``timeout`` the seconds it may take."


def named_check(exercise: Exercise, body: Body) -> Callable[..., None]:
    """The function ``exercise.check``, which reads its arguments as a notebook passes them."""
    shape = signature(exercise)

    def check(*args, **kwargs) -> None:
        __tracebackhide__ = True  # IPython then shows the student's cell, not the grader's frames
        given = shape.bind(*args, **kwargs)  # a wrong call is a TypeError that names the parameter
        given.apply_defaults()
        values = given.arguments
        body(exercise.name, values[exercise.name], values.get("start", "fresh"), values["seed"], values["timeout"])

    check.__name__ = check.__qualname__ = exercise.check
    check.__signature__ = shape
    check.__doc__ = _doc(exercise)
    return check


def named_checks(body: Body, module: str) -> dict[str, Callable[..., None]]:
    """Every declared check function over ``body``, by name, each said to belong to ``module``."""
    found = {}
    for exercise in EXERCISES.values():
        if exercise.check:
            found[exercise.check] = named_check(exercise, body)
            found[exercise.check].__module__ = module
    return found
