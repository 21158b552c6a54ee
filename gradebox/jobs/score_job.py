"""A notebook's checks, scored outside its kernel, as a job: where every grade comes from.

The plan (on ``PLAN_FD``, written by the grader: ``autograder.grading.score``) lists the
submission's answer cells and the cells the student added, and its test cells' checks, in notebook
order.  Starting from the lesson's shared cells' namespace (the server's template, or the shared
cells run here), each answer cell is executed as Run All would (an error is noted, and the next
cell runs), with everything it prints thrown away: a debug print of any size costs nothing here.
At each test cell, each check runs the named function through the exercise's scenarios, every
scenario in a child of this process (``run.run_in_children``), and each scenario's record is
written as its own frame, ``<cell>-<check>-<scenario>``.  The judge reads them in the grader; this
job never sees a reference, an expected value or a verdict.
"""

from __future__ import annotations

import os
import signal
import sys
import time

from ..protocol import write_frame
from .exercise_job import read_plan

#: Once an answer cell's time is up, its alarm comes again this often until the cell has stopped.
AGAIN_SECONDS = 0.05


class CellTimeout(BaseException):
    """An answer cell ran longer than a cell may while it was executed for scoring.  Not an
    ``Exception``, so that a student's ``except Exception: pass`` in a loop does not swallow it."""


class CellClock:
    """The time limit of the answer cell being run: SIGALRM raises ``CellTimeout`` in it.

    One alarm is not enough. Python runs the at-fork hooks of the modules loaded here (logging's
    are Python functions) around every ``os.fork()``, even one that fails, and an exception raised
    in a hook is reported as unraisable and dropped: in a fork bomb's loop, almost every alarm
    lands in one. So once the time is up, the alarm comes again every ``AGAIN_SECONDS`` until one
    lands in the cell's own code. Whoever runs the cell sets ``armed`` to False as the first thing
    after it, a plain store that lets no alarm in between; an alarm after that changes nothing."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.armed = False
        signal.signal(signal.SIGALRM, self._ring)

    def _ring(self, signum, frame) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, AGAIN_SECONDS)
            raise CellTimeout(f"this cell ran longer than {self.seconds:g} s")

    def start(self) -> None:
        self.armed = True
        signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def cancel(self) -> None:
        self.armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)


def _quiet() -> None:
    """Everything this job prints goes nowhere: only its records count."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - for the job's lifetime


def end_other_processes() -> None:
    """Kill every process of this job but itself, and reap them.

    A cell that ran out of time may leave processes behind: a fork bomb's, spinning until the job
    ends. They share the job's CPU (one scheduling group, ``confine.own_scheduling_group``), so the
    checks after that cell would crawl until the job's own time ran out, with a grading slot and
    the CPU held all that while. The job is PID 1 of its own PID namespace, where ``kill(-1)``
    reaches every process of the namespace but itself, and nothing outside it; anywhere else it
    would reach far more, so it is not sent."""
    if os.getpid() != 1:
        return
    while True:
        try:
            # Again until none is left: a process that was forking as the signal went out may
            # have a child the signal missed.
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:  # orphans are the namespace's init's to reap
                pass
        except ChildProcessError:
            return  # no process left
        time.sleep(0.01)


def main(request: dict, limits, work: str) -> None:
    """Run the plan.  Never returns."""
    from IPython.core.inputtransformer2 import TransformerManager

    from .. import exercises
    from ..tamper.watch import start_watch
    from .kernel_job import TEMPLATE, run_cells
    from .run import describe_exception, encode_record, run_in_children

    plan = read_plan()
    _quiet()
    shell = TEMPLATE["shell"] if TEMPLATE else run_cells(plan["shared"])
    namespace = shell.user_ns
    changes = start_watch()  # before any student code: what it changes in torch or the grader shows
    transform = TransformerManager().transform_cell
    failed = None  # the last answer cell that raised, for the message of a function it did not define

    clock = CellClock(limits.cell_seconds)
    for item in plan["items"]:
        if item["kind"] == "code":
            label = item.get("label") or f"answer cell {item['index']}"  # as the student sees it: In [20]
            try:
                clock.start()
                exec(compile(transform(item["source"]), f"<{label}>", "exec"), namespace)
                clock.armed = False  # first thing after the cell (see CellClock)
            except BaseException as exc:  # noqa: BLE001 - as Run All: note it, run the next cell
                clock.armed = False
                failed = {**describe_exception(exc), "cell": item["index"]}
                if isinstance(exc, CellTimeout):
                    end_other_processes()
            clock.cancel()
            continue
        for k, check in enumerate(item["checks"]):
            name = f"{item['index']}-{k}-"
            scenarios = exercises.get(check["exercise"]).suite(check["start"], int(check["seed"]))
            fn = namespace.get(check["function"])
            tampered = changes()
            if tampered or not callable(fn):
                error = None
                if not tampered:
                    why = f"your answer cells do not define a function named {check['function']}"
                    if failed:
                        why += f" (a cell raised {failed['type']}: {failed['message'][:200]})"
                    error = {"type": "NotDefined", "message": why, "where": ""}
                record = {"observation": None, "error": error, "tampered": tampered}
                write_frame(name + "0", encode_record(record))
                continue
            records, _ = run_in_children(check["exercise"], fn, scenarios, limits, keep_output=False)
            for s, data in enumerate(records):
                write_frame(f"{name}{s}", data)
    os._exit(0)
