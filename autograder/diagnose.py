"""The Python API behind the diagnose CLI and the notebook's own self-check.

student code -> its run through the exercise's scenarios, where the student's code lives
(``gradebox.jobs``) -> one record per scenario -> the judge (``autograder.judge``), in a process
the student's code never touched -> ``Verdict``.

* a file (``diagnose_file``/``diagnose_files``): a job of the warm sandboxed server
  (``host.client``), its records judged in a judging process with limits (``judge.pool``);
* a notebook's function (``diagnose_function``, the self-check in a student's own notebook): each
  scenario in a child of the notebook's kernel (``jobs.run.run_in_children``), judged in the kernel.
  That protects the student's kernel; it is not a grade (grades come from the sandbox).

Messages are in the language of the caller's context (``autograder.i18n.speaking``, which
``diagnose --lang`` opens): each file's thread runs in a copy of that context.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import gradexercises
from gradebox.limits import DEFAULTS, Limits

from .host.limit_settings import DEFAULT_JOBS
from .i18n import _
from .verdict import Verdict


def diagnose_function(
    exercise: str, fn, start: str = "fresh", seed: int = 0, limits: Limits = DEFAULTS
) -> tuple[Verdict, str]:
    """The verdict for a function object (a notebook's), and what the function printed."""
    from gradebox import exercises
    from gradebox.jobs.run import run_in_children
    from gradebox.tamper.provenance import provenance_problems

    from .judge import judge_safely, tampered_verdict

    scenarios = exercises.get(exercise).suite(start, seed)
    problems = provenance_problems()
    if problems:
        return tampered_verdict(exercise, problems), ""
    records, printed = run_in_children(exercise, fn, scenarios, limits)
    return judge_safely(exercise, start, seed, records, None, limits), printed


def diagnose_file(
    exercise: str, path: str, start: str = "all", seed: int = 0, limits: Limits = DEFAULTS, pool=None
) -> Verdict:
    """The verdict for the function ``exercise`` defined in the Python file ``path``, run in the
    sandbox (a job of the warm server), judged in ``pool`` (the shared one by default)."""
    from .host.client import run_exercise
    from .judge.pool import shared_pool

    _check_request(exercise, start)
    pool = pool or shared_pool(limits)
    run = run_exercise(os.path.abspath(path), exercise, start, seed, limits)
    return pool.judge(exercise, start, seed, run.records, run.ended)


def diagnose_files(
    exercise: str,
    paths: list[str],
    jobs: int = DEFAULT_JOBS,
    start: str = "all",
    seed: int = 0,
    limits: Limits = DEFAULTS,
) -> Iterator[tuple[str, Verdict]]:
    """Verdicts for many files, in the order given, ``jobs`` sandboxed jobs at a time (0: the
    default, ``DEFAULT_JOBS``).  The warm server starts once; a file that crashes, hangs or exits
    does not stop the others."""
    from .host.client import shared_server
    from .judge.pool import shared_pool

    _check_request(exercise, start)
    pool = shared_pool(limits)  # starts judging while the server boots
    shared_server("exercise")  # SandboxError here, before the first file, if there is no sandbox
    jobs = jobs or DEFAULT_JOBS
    with ThreadPoolExecutor(max_workers=jobs) as threads:
        # A thread starts with an empty context: each runs in a copy of this one, in its language.
        futures = [
            threads.submit(contextvars.copy_context().run, _safe_file, exercise, path, start, seed, limits, pool)
            for path in paths
        ]
        for path, future in zip(paths, futures):
            yield path, future.result()


def _check_request(exercise: str, start: str) -> None:
    """An unknown exercise (KeyError) or start (ValueError) is the caller's mistake, refused before
    any job starts, and from the declarations alone: the process that asks for jobs never imports
    torch (the sandbox's servers and the judging workers do, once each)."""
    gradexercises.declared(exercise)
    if start not in ("all", *gradexercises.STARTS):
        raise ValueError(f"start must be 'all' or one of {', '.join(gradexercises.STARTS)}, not {start!r}")


def _safe_file(exercise: str, path: str, start: str, seed: int, limits: Limits, pool) -> Verdict:
    from .host.client import SandboxError

    if not os.path.isfile(path):
        return Verdict(exercise, "error", _("There is no file at {path}.").format(path=path))
    try:
        return diagnose_file(exercise, path, start, seed, limits, pool)
    except SandboxError:
        raise  # the sandbox itself is gone: no verdict would be true
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the others
        message = _("The grader could not run this file: {error}: {detail}").format(
            error=type(exc).__name__, detail=exc
        )
        return Verdict(exercise, "error", message)
