"""Running a student's function through an exercise's scenarios, in the job: one record per scenario.

A scenario's record is plain data (``gradebox.record`` encodes it)::

    {"observation": <what the exercise's run() wrote down> | None,
     "error": None | {"type", "message", "where"[, "observation"]},
     "tampered": [<what changed in torch or the grader's tools>]}

``error.observation`` is the record so far when the student's function raised inside a scenario
(the exercise's run() hands the exception back beside it): it lets the judge say what led to the
error (a loss called with its arguments swapped).  A scenario that ends in an error or a change to
torch ends the run: the judge needs nothing after it.
"""

from __future__ import annotations

import os
import traceback

from .. import exercises
from ..box.child import forking_is_safe, run_in_child
from ..limits import TORCH_THREADS
from ..record import UnreadableRecord, decode, encode
from ..tamper.watch import start_watch


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


def run_scenario(exercise: str, load, scenario, changes, source: str | None = None) -> dict:
    """One scenario's record.  ``load()`` returns the student's function (afresh when it can);
    ``changes()`` is a tamper watch (``start_watch()``) taken before any student code ran."""
    record = {"observation": None, "error": None, "tampered": []}
    try:
        observation = exercises.get(exercise).run(load(), scenario)
    except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too
        record["error"] = describe_exception(exc, source)
    else:
        raised = observation.pop("exception", None) if isinstance(observation, dict) else None
        if isinstance(raised, BaseException):
            # The exercise caught the student's exception to keep the record so far, which tells
            # the judge what led to it.
            record["error"] = {**describe_exception(raised, source), "observation": observation}
        else:
            record["observation"] = observation
    record["tampered"] = changes()
    if not record["tampered"] and record["observation"] and not record["observation"].pop("hooks_intact", True):
        record["tampered"] = ["the grader's hooks on the optimizer or the model"]
    return record


def ended(record: dict) -> bool:
    """Does this record end the run?  A change to torch does: what runs after it proves nothing.  An
    exception does not: the next scenario starts afresh and may show another mistake, which the
    verdict names beside the crash."""
    return bool(record["tampered"])


def run_all(exercise: str, load, scenarios: list, source: str | None = None, changes=None):
    """Every scenario's record, in order, up to the first that ends the run."""
    changes = changes or start_watch()
    for scenario in scenarios:
        record = run_scenario(exercise, load, scenario, changes, source)
        yield record
        if ended(record):
            return


def load_source(path: str, name: str):
    """A loader that executes the student's file in a new namespace each time it is called, so
    that module-level state cannot leak from one scenario to the next."""
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


# ---- each scenario in a child of this process ------------------------------------------------

OUTPUT_KEPT = 2000  # characters of a student's own prints kept for the notebook's self-check
ENDED, GOES_ON = b"1", b"0"  # the child's first byte: did its scenario end the run?


def run_in_children(exercise: str, fn, scenarios: list, limits, keep_output: bool = True) -> tuple[list[bytes], str]:
    """Run ``fn`` through the scenarios, each in a child of this process that starts from this
    process's state (so state the function keeps cannot leak from one scenario to the next).

    Returns each scenario's record (``gradebox.record`` bytes), in order, up to the first that
    ends the run, and what the function printed.  A child that hangs or dies leaves a failure
    record in its place (``{"failure": "timeout" | "died", "detail"}``), which ends the run too."""
    from functools import partial

    records, printed = [], []
    # A forked child starts with this process's state, so one snapshot taken here serves every
    # child (a spawned child, on macOS and Windows, cannot share it and takes its own).
    watch = start_watch() if forking_is_safe() else None
    if watch is not None:
        # One full comparison here, before the first child: the notebook's own cells ran since the
        # watch was taken (torch fills some of its dicts lazily), so without it every child would
        # miss the quick check and pay for the full one.  A change found here is found again, and
        # reported, by each child.
        watch()
    for scenario in scenarios:
        outcome = run_in_child(partial(_child, exercise, fn, scenario, watch, keep_output), limits)
        data = outcome.record
        if data is None or data[:1] not in (ENDED, GOES_ON):
            detail = outcome.detail if data is None else "it wrote an unreadable record"
            records.append(encode({"failure": outcome.failure or "died", "detail": detail}))
            break
        records.append(data[1:])
        if keep_output:
            printed.append(_output_of(data[1:]))
        if data[:1] == ENDED:
            break
    return records, "".join(printed)[:OUTPUT_KEPT]


def _output_of(data: bytes) -> str:
    try:
        output = decode(data).get("output", "")
    except (UnreadableRecord, AttributeError):
        return ""
    return output if isinstance(output, str) else ""


def _child(exercise: str, fn, scenario, watch, keep_output: bool) -> bytes:
    """In the child: the student's prints captured (or thrown away), one scenario run, its record."""
    import io
    import sys

    import torch

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    captured = io.StringIO() if keep_output else open(os.devnull, "w")  # noqa: SIM115 - the child exits
    sys.stdout = sys.stderr = captured
    torch.set_num_threads(TORCH_THREADS)
    try:
        record = run_scenario(exercise, lambda: fn, scenario, watch or start_watch())
    except BaseException as exc:  # noqa: BLE001
        record = {"observation": None, "error": describe_exception(exc), "tampered": []}
    if keep_output:
        record["output"] = captured.getvalue()[:OUTPUT_KEPT]
    return (ENDED if ended(record) else GOES_ON) + encode_record(record)


def encode_record(record: dict) -> bytes:
    """The record's bytes; a record that cannot be written (a value of a kind a record cannot hold,
    from a student object that slipped into it) becomes an error record that says so."""
    try:
        return encode(record)
    except (TypeError, ValueError, RecursionError) as error:
        problem = {
            "type": "UnrecordableResult",
            "message": f"the run could not be recorded: {error}"[:400],
            "where": "",
        }
        return encode({"observation": None, "error": problem, "tampered": record.get("tampered", [])})
