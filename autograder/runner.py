"""Running a student's function through the scenarios of an exercise, where the student's code
lives (a job of the sandbox's server, or a child of a notebook's kernel), and collecting a record.

A student's file is loaded afresh for every scenario (``load_source``), so module-level state
cannot leak between scenarios.  The record is plain data, written with ``torch.save`` and read
by the judge with ``weights_only=True``.
"""

from __future__ import annotations

import io
import os
import traceback

import torch

from . import exercises
from .tamper import start_watch


class NotDefined(Exception):
    """The student's source does not define the exercise's function."""


def describe_exception(exc: BaseException, source: str | None = None) -> dict:
    where = ""
    frames = traceback.extract_tb(exc.__traceback__)
    student = [f for f in frames if source and os.path.abspath(f.filename) == os.path.abspath(source)]
    if student:
        where = f"line {student[-1].lineno}"
    elif isinstance(exc, SyntaxError) and exc.lineno:
        where = f"line {exc.lineno}"
    message = str(exc) if not isinstance(exc, SystemExit) else f"exit code {exc.code}"
    return {"type": type(exc).__name__, "message": message[:400], "where": where}


def collect(exercise: str, load, scenarios: list, source: str | None = None, changes=None) -> dict:
    """Run every scenario; ``load()`` returns the student's function (afresh when it can).

    ``changes`` is a tamper watch (``start_watch()``) taken earlier with this process's current
    state, e.g. by the parent of a forked child: the child then compares with it instead of taking
    its own snapshot, which costs a forked child more than its scenario (every object it visits is
    a page the child must copy)."""
    module = exercises.get(exercise)
    changes = changes or start_watch()
    result = {"observations": [], "error": None, "tampered": []}
    for scenario in scenarios:
        try:
            obs = module.run(load(), scenario)
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too
            result["error"] = describe_exception(exc, source)
        else:
            raised = obs.pop("exception", None) if isinstance(obs, dict) else None
            if isinstance(raised, BaseException):
                # The exercise caught the student's exception to keep the record so far, which
                # tells the judge what led to it.
                result["error"] = {**describe_exception(raised, source), "observation": obs}
        result["tampered"] = changes()
        if not result["tampered"] and result["error"] is None and not obs.get("hooks_intact", True):
            result["tampered"] = ["the grader's hooks on the optimizer or the model"]
        if result["error"] or result["tampered"]:
            break
        result["observations"].append(obs)
    return result


def load_source(path: str, name: str):
    """A loader that executes the student's file in a new namespace each time it is called."""
    with open(path, encoding="utf-8", errors="replace") as f:
        code = compile(f.read(), path, "exec")

    def load():
        namespace = {"__name__": "submission", "__file__": path, "__builtins__": __builtins__}
        exec(code, namespace)
        fn = namespace.get(name)
        if not callable(fn):
            raise NotDefined(f"the file does not define a function named {name}")
        return fn

    return load


def encode(result: dict) -> bytes:
    buffer = io.BytesIO()
    torch.save(result, buffer)
    return buffer.getvalue()


def decode(data: bytes) -> dict:
    # weights_only: a record written by a process that ran untrusted code is never unpickled.
    return torch.load(io.BytesIO(data), weights_only=True)
