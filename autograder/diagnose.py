"""The Python API behind the diagnose CLI and the notebook checks.

student code -> a run of the exercise's scenarios (``runner``) where the student's code lives ->
record -> ``exercise.judge`` in this process, which the student's code never touched -> ``Verdict``.

A file (``diagnose_file``) runs in a job of the warm sandboxed server (``sandbox.client``); a
notebook's function (``diagnose_function``) in a child of the notebook's kernel (``sandbox.child``).
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import torch

from . import exercises, tamper
from .runner import collect, decode, describe_exception, encode
from .sandbox.child import forking_is_safe, run_in_child
from .sandbox.limits import DEFAULTS, Limits
from .sandbox.outcome import Outcome
from .tamper import start_watch
from .verdict import Verdict

OUTPUT_SHOWN = 2000  # characters of a student's own prints shown back in a notebook


def verdict_from_record(exercise: str, scenarios: list, result: dict, limits: Limits = DEFAULTS) -> Verdict:
    if result.get("failure"):
        return verdict_from_outcome(exercise, scenarios, Outcome(None, result["failure"], result["detail"]), limits)
    if result.get("tampered"):
        return Verdict(
            exercise,
            "tampered",
            f"Your code changed {tamper.describe(result['tampered'])}, which the grader relies "
            "on; solve the exercise without modifying torch, the optimizer or the grader.",
        )
    error = result.get("error")
    done = result.get("observations", [])
    if error:
        verdict = _error_verdict(exercise, error)
        if done:
            # The scenarios before the one that raised may already show a mistake: name it first.
            earlier = exercises.get(exercise).judge(scenarios[: len(done)], done)
            if earlier.code == verdict.code:
                return earlier
            if not earlier.passed:
                also = f"{verdict.message[0].lower()}{verdict.message[1:]}"
                return Verdict(exercise, earlier.code, f"{earlier.message} Also, in another case: {also}")
        return verdict
    return exercises.get(exercise).judge(scenarios, done)


def _error_verdict(exercise: str, error: dict) -> Verdict:
    module = exercises.get(exercise)
    kind, message, where = error["type"], error["message"], error.get("where", "")
    if hasattr(module, "explain_error"):
        verdict = module.explain_error(error)
        if verdict is not None:
            return verdict
    at = f" at {where}" if where else ""
    if kind == "NotDefined":
        text = f"No function named {exercise} was found: {message}."
    elif kind == "SystemExit":
        text = f"Your code called sys.exit() ({message}){at}: return from the function instead."
    elif kind == "KeyboardInterrupt":
        text = f"Your code was interrupted{at}."
    elif kind in ("MemoryError",) or "can't allocate memory" in message or "not enough memory" in message:
        text = f"Your code ran out of memory{at} ({kind}: {message[:120]})."
    elif kind == "SyntaxError":
        text = f"Your code has a syntax error{at}: {message}."
    else:
        text = f"Your function raised {kind}{at}: {message}"
    return Verdict(exercise, "error", text)


def verdict_from_outcome(exercise: str, scenarios: list, outcome: Outcome, limits: Limits) -> Verdict:
    if outcome.failure == "timeout":
        return Verdict(
            exercise,
            "timeout",
            f"Your function did not finish within {limits.check_seconds:g} s: look for an endless loop "
            "or a very long computation.",
        )
    if outcome.record is None:
        advice = " Never call os._exit() or exit() in the function." if "exit code" in outcome.detail else ""
        return Verdict(
            exercise, "error", f"The process running your code ended before finishing: {outcome.detail}.{advice}"
        )
    try:
        result = decode(outcome.record)
    except Exception as exc:  # noqa: BLE001 - anything the student's process may have written
        return Verdict(exercise, "error", f"The run produced an unreadable record ({type(exc).__name__}).")
    return verdict_from_record(exercise, scenarios, result, limits)


def diagnose_file(exercise: str, path: str, start: str = "all", seed: int = 0, limits: Limits = DEFAULTS) -> Verdict:
    """The verdict for the function ``exercise`` defined in the Python file ``path``, run in the
    sandbox (a job of the warm server)."""
    from .sandbox.client import run_exercise

    scenarios = exercises.get(exercise).suite(start, seed)  # an unknown name fails here, before any job
    outcome = run_exercise(os.path.abspath(path), exercise, start, seed, limits)
    return verdict_from_outcome(exercise, scenarios, outcome, limits)


def diagnose_files(
    exercise: str, paths: list[str], jobs: int = 0, start: str = "all", seed: int = 0, limits: Limits = DEFAULTS
) -> Iterator[tuple[str, Verdict]]:
    """Verdicts for many files, in the order given, ``jobs`` sandboxed jobs at a time.  The warm
    server starts once; a file that crashes, hangs or exits does not stop the others."""
    from .sandbox.client import shared_server

    exercises.get(exercise)
    shared_server("exercises")  # SandboxError here, before the first file, if there is no sandbox
    jobs = jobs or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_safe_file, exercise, path, start, seed, limits) for path in paths]
        for path, future in zip(paths, futures):
            yield path, future.result()


def _safe_file(exercise: str, path: str, start: str, seed: int, limits: Limits) -> Verdict:
    from .sandbox.policy import SandboxError

    if not os.path.isfile(path):
        return Verdict(exercise, "error", f"There is no file at {path}.")
    try:
        return diagnose_file(exercise, path, start, seed, limits)
    except SandboxError:
        raise  # the sandbox itself is gone: no verdict would be true
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the others
        return Verdict(exercise, "error", f"The grader could not run this file: {type(exc).__name__}: {exc}")


def diagnose_function(
    exercise: str, fn, start: str = "fresh", seed: int = 0, limits: Limits = DEFAULTS
) -> tuple[Verdict, str]:
    """The verdict for a function object (a notebook's), and what the function printed.

    Each scenario runs in its own child of this process, so a crash, a hang or a change to
    torch made by the student's function cannot reach the judge."""
    scenarios = exercises.get(exercise).suite(start, seed)
    problems = tamper.provenance_problems()
    if problems:
        return verdict_from_record(exercise, scenarios, {"tampered": problems}), ""
    result = record_in_children(exercise, fn, scenarios, limits)
    return verdict_from_record(exercise, scenarios, result, limits), result["output"]


def record_in_children(exercise: str, fn, scenarios: list, limits: Limits = DEFAULTS) -> dict:
    """Run ``fn`` through the scenarios, each in a child of this process that starts from this
    process's state (so state the function keeps cannot leak from one scenario to the next); the
    records merged, plain data.  A child that hangs or dies ends the record with ``failure``."""
    merged = {"observations": [], "error": None, "tampered": [], "failure": None, "detail": "", "output": ""}
    printed = []
    # A forked child starts with this process's state, so one snapshot taken here serves every
    # child (a spawned child, on macOS and Windows, cannot share it and takes its own).
    watch = start_watch() if forking_is_safe() else None
    for scenario in scenarios:
        outcome = run_in_child(partial(_child_work, exercise, fn, scenario, watch), limits)
        try:
            result = decode(outcome.record) if outcome.record is not None else None
        except Exception:  # noqa: BLE001 - anything the student's process may have written
            outcome, result = Outcome(None, "died", "it wrote an unreadable record"), None
        if result is None:
            merged.update(failure=outcome.failure, detail=outcome.detail)
            break
        printed.append(result.pop("output", ""))
        merged["observations"] += result["observations"]
        if result["error"] or result["tampered"]:
            merged.update(error=result["error"], tampered=result["tampered"])
            break
    merged["output"] = "".join(printed)[:OUTPUT_SHOWN]
    return merged


def _child_work(exercise: str, fn, scenario, watch=None) -> bytes:
    """In the child: capture output, run one scenario, return the encoded record."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    captured = io.StringIO()
    sys.stdout = sys.stderr = captured
    torch.set_num_threads(1)
    try:
        result = collect(exercise, lambda: fn, [scenario], changes=watch)
    except BaseException as exc:  # noqa: BLE001
        result = {"observations": [], "error": describe_exception(exc), "tampered": []}
    result["output"] = captured.getvalue()[:OUTPUT_SHOWN]
    return encode(result)
