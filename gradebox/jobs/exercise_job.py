"""One Python file's function through an exercise's scenarios, as a job: what ``diagnose`` runs.

The plan (on ``PLAN_FD``, written by the grader) names the exercise, the file (in the job's working
folder), the start and the seed.  The file is loaded afresh for every scenario, so module-level
state cannot leak from one scenario to the next; each scenario's record is written as its own frame
(``0``, ``1``, ...) on ``RECORD_FD``.  The judge reads them in the grader.  ``preload`` is the
``exercise`` profile's (``profiles.py``): torch and the exercises, imported once in the server.
"""

from __future__ import annotations

import json
import os

from ..limits import TORCH_THREADS
from ..protocol import PLAN_FD, write_frame


def warm_torch() -> None:
    """Import torch and what the first optimizer and the first backward pull in lazily, once, in the
    server: every job forked from it then starts warm."""
    import torch
    import torch._dynamo  # noqa: F401  (the first optimizer imports it)

    from .. import exercises  # noqa: F401
    from . import run  # noqa: F401

    torch.nn.Parameter(torch.zeros(1))
    torch.set_num_threads(TORCH_THREADS)  # why one: gradebox/limits.py


def preload(options: dict) -> None:
    warm_torch()
    from ..tamper.watch import seal
    from . import standins

    # A file copied out of a notebook keeps its `from autograder.checks import ...` line: it finds the
    # job side's stand-ins, as a grading kernel does, instead of failing to load.
    standins.install()
    seal()  # every job compares with torch as it is now, before any student code


def read_plan() -> dict:
    chunks = []
    while chunk := os.read(PLAN_FD, 1 << 16):
        chunks.append(chunk)
    return json.loads(b"".join(chunks))


def main(request: dict, limits, work: str) -> None:
    """Run the scenarios, write each record.  Never returns."""
    from .. import exercises
    from .run import describe_exception, encode_record, load_source, run_all

    plan = read_plan()
    source, exercise = os.path.join(work, plan["source"]), plan["exercise"]
    try:
        scenarios = exercises.get(exercise).suite(plan["start"], int(plan["seed"]))
        load = load_source(source, exercise)
    except BaseException as exc:  # noqa: BLE001 - a syntax error, a file that cannot be read
        write_frame("0", encode_record({"observation": None, "error": describe_exception(exc, source), "tampered": []}))
        os._exit(0)
    for index, record in enumerate(run_all(exercise, load, scenarios, source)):
        write_frame(str(index), encode_record(record))
    # Skip interpreter shutdown: student objects may have left atexit handlers or threads.
    os._exit(0)
