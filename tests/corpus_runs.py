"""The labelled corpus (tests/fixtures/corpus/<exercise>/*.py) run through the sandbox once per test session.

Running its ~300 files in bubblewrap is most of what tests/e2e/test_corpus.py,
tests/unit/autograder/test_i18n_judges.py and tests/e2e/test_diagnose_language.py cost, and each of them
used to run (part of) it again.  A file's run does not depend on who judges its records, or in which
language, so every file now runs once, as ``autograder.diagnose.diagnose_file`` runs it (``run_exercise``,
start "all", seed 0, the default limits; a file labelled ``timeout`` with a 3 s limit, as it only has
to be cut off: each one spins for its whole limit), and each test file judges the records itself.

The suite runs under pytest-xdist (``-n 2 --dist loadfile``): those test files may run in different
worker processes, at the same time.  So the runs of each exercise go to a pickle in the temp folder
every worker of the session shares, under a file lock: the first worker that asks for an exercise runs
it and writes the file; another waits on the lock, then reads it.  The file's name holds a digest of
the exercise's corpus files (names and contents): runs of other files are never read.  Each exercise
runs when it is first asked for, so ``pytest -k <exercise>`` runs only that one.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from filelock import FileLock

from tests.labelled import CORPUS, labelled_files

HANG_SECONDS = 3  # the check_seconds of a file labelled `timeout`: it only has to be cut off
THREADS = 2  # sandboxed jobs at a time, in the worker that runs an exercise
FILES = labelled_files(CORPUS)

Run = tuple[list[bytes], dict | None]  # run_exercise's records and ended


def hang_limits():
    """The limits a file labelled ``timeout`` runs with (the others: ``gradebox.limits.DEFAULTS``)."""
    from gradebox.limits import DEFAULTS

    return replace(DEFAULTS, check_seconds=HANG_SECONDS)


def limits_for(code: str):
    """The limits a corpus file labelled ``code`` runs with, and is judged with."""
    from gradebox.limits import DEFAULTS

    return hang_limits() if code == "timeout" else DEFAULTS


def digest(exercise: str) -> str:
    """A digest of the names and contents of the exercise's corpus files."""
    hasher = hashlib.sha256(exercise.encode() + b"\0")
    for e, path, _, _ in FILES:
        if e == exercise:
            with open(path, "rb") as f:
                content = f.read()
            hasher.update(f"{os.path.relpath(path, CORPUS)}\0{len(content)}\0".encode() + content)
    return hasher.hexdigest()[:20]


def run_exercise_files(exercise: str) -> dict[str, Run]:
    """Each corpus file of ``exercise`` run in the sandbox, by path, ``THREADS`` at a time."""
    from autograder.host.client import run_exercise, shared_server

    shared_server("exercise")  # started once, before the threads (a SandboxError here if there is none)
    # The hangs first: each takes its whole limit, while the other thread runs the rest.
    items = sorted(((p, code) for e, p, _, code in FILES if e == exercise), key=lambda item: item[1] != "timeout")

    def run(item):
        path, code = item
        done = run_exercise(os.path.abspath(path), exercise, "all", 0, limits_for(code))
        return path, (done.records, done.ended)

    with ThreadPoolExecutor(max_workers=THREADS) as threads:
        return dict(threads.map(run, items))


class CorpusRuns:
    """``runs(exercise)``: {path: (records, ended)} for every corpus file of the exercise, run once per
    session (see the module's docstring); ``folder`` is the temp folder every worker shares."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.known: dict[str, dict[str, Run]] = {}

    def __call__(self, exercise: str) -> dict[str, Run]:
        if exercise not in self.known:
            self.known[exercise] = self._shared(exercise)
        return self.known[exercise]

    def line(self, exercise: str, path: str, code: str) -> str:
        """The JSON line `python -m autograder diagnose` prints for the corpus file ``path`` (labelled
        ``code``): its session run, judged by the judging pool with the limits it ran with, in the
        language the judges speak now."""
        from autograder.judge.pool import shared_pool

        records, ended = self(exercise)[path]
        return shared_pool(limits_for(code)).judge(exercise, "all", 0, records, ended).to_json(path)

    def _shared(self, exercise: str) -> dict[str, Run]:
        path = os.path.join(self.folder, f"corpus-runs-{exercise}-{digest(exercise)}.pickle")
        with FileLock(path + ".lock"):
            if os.path.exists(path):
                with open(path, "rb") as f:
                    return pickle.load(f)
            runs = run_exercise_files(exercise)
            partial = f"{path}.{os.getpid()}.tmp"
            with open(partial, "wb") as f:
                pickle.dump(runs, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(partial, path)  # whole or absent, for a reader that does not take the lock
            return runs
