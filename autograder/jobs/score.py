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

from ..sandbox.protocol import write_frame
from .exercise import read_plan


class CellTimeout(Exception):
    """An answer cell ran longer than a cell may while it was executed for scoring."""


def _quiet() -> None:
    """Everything this job prints goes nowhere: only its records count."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - for the job's lifetime


def main(request: dict, limits, work: str) -> None:
    """Run the plan.  Never returns."""
    from IPython.core.inputtransformer2 import TransformerManager

    from .. import exercises
    from ..tamper.watch import start_watch
    from .kernel import TEMPLATE, run_cells
    from .run import describe_exception, encode_record, run_in_children

    plan = read_plan()
    _quiet()
    shell = TEMPLATE["shell"] if TEMPLATE else run_cells(plan["shared"])
    namespace = shell.user_ns
    changes = start_watch()  # before any student code: what it changes in torch or the grader shows
    transform = TransformerManager().transform_cell
    failed = None  # the last answer cell that raised, for the message of a function it did not define

    def on_alarm(signum, frame):
        raise CellTimeout(f"this cell ran longer than {limits.cell_seconds} s")

    signal.signal(signal.SIGALRM, on_alarm)
    for item in plan["items"]:
        if item["kind"] == "code":
            try:
                signal.alarm(int(limits.cell_seconds))
                label = item.get("label") or f"answer cell {item['index']}"  # as the student sees it: In [20]
                exec(compile(transform(item["source"]), f"<{label}>", "exec"), namespace)
            except BaseException as exc:  # noqa: BLE001 - as Run All: note it, run the next cell
                failed = {**describe_exception(exc), "cell": item["index"]}
            finally:
                signal.alarm(0)
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
