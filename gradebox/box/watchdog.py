"""The server's watch over its running jobs: memory and number of all of a job's processes together,
and what a job wrote in its folder outside its private file system.

A per-process address-space limit (``confine.set_rlimits``) cannot stop many processes that each
stay under it, and a job's private file system has a hard size but its folder around it does not:
so every ``WATCH_SECONDS`` the watchdog sums each job's resident memory and, every
``DISK_SECONDS``, measures its folder, and kills a job over its limit with the reason.

Resident sizes are cheap to read but count the pages a forked child shares with its parent once
per process (a hundred sleeping forks of a kernel look like a hundred kernels); a job over its
limit by that measure is measured again by proportional size (PSS), which divides each shared page
among its sharers, at most every ``PSS_SECONDS``, and stopped only if that is over too.
"""

from __future__ import annotations

import os
import signal
import time

import psutil

from ..limits import DISK_SECONDS, INODES, PSS_SECONDS, WATCH_SECONDS, Limits


class Job:
    """A running job, as the server sees it: its keeper, its PID 1, its limits and its folder."""

    def __init__(self, keeper: int, pid: int, limits: Limits, kind: str, folder: str):
        self.keeper = keeper
        self.kind = kind  # "kernel", "exercise" or "score"
        self.folder = folder  # what it writes there, outside its private file system, counts
        self.pid = pid  # PID 1 of the job's namespace, as the server sees it
        self.limits = limits
        self.returncode: int | None = None
        self.reason = ""
        self.measured = 0.0  # when the job's proportional size was last measured
        self.disk_checked = 0.0  # when its folder was last measured

    def kill(self) -> None:
        """SIGKILL the keeper and the job (PID 1 of its namespace: everything in it goes too)."""
        for pid in (self.keeper, self.pid):
            try:
                if pid > 0:
                    os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def processes(self) -> list[psutil.Process]:
        """The job's PID 1 and every process below it: orphans in its namespace are re-parented
        to PID 1, so nothing the student starts escapes this list."""
        try:
            top = psutil.Process(self.pid)
            return [top, *top.children(recursive=True)]
        except psutil.Error:
            return []


def disk_used(folder: str, limit: int) -> tuple[int, int]:
    """(bytes, entries) under ``folder``, without following links; stops counting past the limit."""
    used = entries = 0
    stack = [folder]
    while stack and used <= limit and entries <= INODES:
        try:
            with os.scandir(stack.pop()) as found:
                for entry in found:
                    entries += 1
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    else:
                        used += entry.stat(follow_symlinks=False).st_blocks * 512
        except OSError:
            continue
    return used, entries


def memory_used(processes: list[psutil.Process], proportional: bool) -> int:
    total = 0
    for process in processes:
        try:
            total += process.memory_full_info().pss if proportional else process.memory_info().rss
        except psutil.Error:
            continue
    return total


class Watchdog:
    """Call ``watch(jobs)`` often; it looks at most every ``WATCH_SECONDS``."""

    def __init__(self) -> None:
        self.watched = 0.0

    def watch(self, jobs) -> None:
        now = time.monotonic()
        if now - self.watched < WATCH_SECONDS:
            return
        self.watched = now
        for job in jobs:
            if job.returncode is None and not job.reason and job.pid > 0:
                self._look(job, now)

    def _look(self, job: Job, now: float) -> None:
        whose = "the notebook" if job.kind == "kernel" else "your code"
        if now - job.disk_checked >= DISK_SECONDS:
            job.disk_checked = now
            used, entries = disk_used(job.folder, job.limits.disk_bytes)
            if used > job.limits.disk_bytes or entries > INODES:
                job.reason = f"disk: {whose} wrote more than {job.limits.disk_mb} MiB (or {INODES} files)"
                job.kill()
                return
        processes = job.processes()
        if len(processes) > job.limits.max_processes:
            # The process limit is per account, not per job, when the grader is not root: a fork bomb
            # is stopped here too, so that it holds the account's processes for a moment at most.
            job.reason = f"processes: {whose} started more than {job.limits.max_processes} processes"
            job.kill()
            return
        limit = job.limits.memory_bytes
        if memory_used(processes, proportional=False) <= limit or now - job.measured < PSS_SECONDS:
            return
        job.measured = now
        if memory_used(processes, proportional=True) > limit:
            job.reason = (
                f"memory: {whose}'s {len(processes)} processes used more than {job.limits.memory_mb} MiB together"
            )
            job.kill()
