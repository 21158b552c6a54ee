"""Who may grade what, when several graders share one course folder and one gradebook.

A course is graded either by one run (``grade``) or by shards side by side (``grade --shard K/N``,
one process per shard, on one machine or on several machines sharing the course folder).  Three
kinds of lock, all ``flock`` locks on files in ``COURSE/.autograder/`` that the kernel releases
when the process ends, however it ends (a killed grader leaves nothing to clean up):

- ``grade.lock``: a whole-course run holds it exclusively; each shard holds it shared.  So shards
  run together, but never beside a whole-course run, which would grade their students too.
- ``shard-K-of-N.lock``: held exclusively by the process grading shard K of N, so the same shard
  cannot be started twice.
- ``claims/ASSIGNMENT/<sha256 of STUDENT>.lock``: held while one submission is being graded (named
  by a hash: a student id is a folder name of any length, and a lock that cannot be made would stop
  the run).  Shards are
  disjoint by construction (see ``Shard``), but the set of submissions can change between the
  start of two shards (a late ``collect``), or two operators can pick different N: the claim makes
  sure that a submission is never graded by two processes at once, whatever the shards.

Each lock file has a ``.pid`` twin naming its holder, for the message that refuses a second run.

The folders are made by the grader, or found and checked, never taken as found
(``sandbox.folders``): a ``.autograder/`` that another account made, or can write into, could hold
the locks (refusing every run) or remove them (two runs on one gradebook), so it is refused with a
message that says what to do.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import hashlib
import os
import re
from dataclasses import dataclass

import psutil

from ..host.folders import UntrustedFolder, trusted_folders
from .course_assignment import GradeError

FOLDER = ".autograder"


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``: every ``count``-th submission of the sorted list of all
    submissions, starting at the ``index``-th.  Sorted by student id, so every grader given the same
    submissions computes the same disjoint, equal-sized groups, without talking to each other."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
        if not match:
            raise GradeError(f"--shard {text!r}: write it K/N, e.g. 1/2 and 2/2 for two graders side by side.")
        index, count = int(match[1]), int(match[2])
        if not 1 <= index <= count:
            raise GradeError(f"--shard {text}: K must be between 1 and N (here N is {count}).")
        return cls(index, count)

    def take(self, students: list[str]) -> list[str]:
        return sorted(students)[self.index - 1 :: self.count]

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def _try_lock(path: str, shared: bool = False):
    """An open file holding a flock on ``path``, or None when another process holds it."""
    handle = open(path, "a+")  # noqa: SIM115 - kept open as long as the lock is held
    try:
        fcntl.flock(handle, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    return handle


def _holder(*paths: str) -> str:
    """Names the live processes that wrote the pid files of ``paths`` (a killed grader's file stays
    behind, harmlessly: it is overwritten by the next holder, and a dead pid is not named)."""
    pids = set()
    for path in paths:
        try:
            with open(path + ".pid") as f:
                pids.update(int(word) for word in f.read().split())
        except (OSError, ValueError):
            continue
    alive = sorted(pid for pid in pids if psutil.pid_exists(pid))
    return f" (process {', '.join(map(str, alive))})" if alive else ""


def _write_pid(path: str) -> None:
    with open(path + ".pid", "w") as f:
        f.write(f"{os.getpid()}\n")


def _remove_pid(path: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(path + ".pid")


def lock_folder(course: str, *below: str) -> str:
    """``COURSE/.autograder/*below``, made by us or checked; GradeError naming it if another account's."""
    try:
        return trusted_folders(os.path.join(course, FOLDER), *below)
    except UntrustedFolder as error:
        raise GradeError(str(error)) from None


@contextlib.contextmanager
def grading_lock(course: str, shard: Shard | None = None):
    """The right to grade the course (``shard`` None) or one shard of it; GradeError if taken."""
    folder = lock_folder(course)
    whole = os.path.join(folder, "grade.lock")
    held = _try_lock(whole, shared=shard is not None)
    if held is None:
        if shard is None:
            raise GradeError(
                f"Another `python -m autograder grade` is grading this course"
                f"{_holder(whole, *glob.glob(os.path.join(folder, 'shard-*.lock')))}. Wait for it to "
                "end, or stop it (what it graded is kept), then run the command again."
            )
        raise GradeError(
            f"A `python -m autograder grade` without --shard is grading the whole course{_holder(whole)}; "
            "shards would grade the same students. Wait for it to end, or stop it, then start the shards."
        )
    mine = whole if shard is None else os.path.join(folder, f"shard-{shard.index}-of-{shard.count}.lock")
    own = held
    try:
        if shard is not None:
            own = _try_lock(mine)
            if own is None:
                raise GradeError(
                    f"Shard {shard} is already being graded{_holder(mine)}. Start each shard once; "
                    "stop that grader first to start it again."
                )
        _write_pid(mine)
        try:
            yield
        finally:
            _remove_pid(mine)
    finally:
        if own is not held and own is not None:
            own.close()
        held.close()


@contextlib.contextmanager
def claim(course: str, assignment: str, student: str):
    """Yields True while this process alone grades ``student``'s submission, False when another
    grader is on it (the caller leaves it to that grader)."""
    folder = lock_folder(course, "claims", assignment)
    named = hashlib.sha256(student.encode("utf-8", "surrogateescape")).hexdigest()
    handle = _try_lock(os.path.join(folder, f"{named}.lock"))
    try:
        yield handle is not None
    finally:
        if handle is not None:
            handle.close()
