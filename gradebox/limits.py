"""Every bound on student code and on what comes back from it, with its default, in one place.

``LIMITS`` declares each limit once (a ``gradebox.settings.Setting``: default, help, bounds, the
nbgrader trait that overrides it); ``Limits``, a frozen dataclass made from it, is what one
sandboxed job may use: a notebook's kernel (grading), one file's run of an exercise (``diagnose``),
a notebook's checks scored outside its kernel, or one check in a test cell (the in-notebook
self-check); and what the judge may spend on one check's records.  Its defaults
are the course's defaults; nothing else in the code states them.  A job gets its limits in its
request (``Limits(**request["limits"])``).

* ``python -m autograder diagnose`` takes them, with ``--timeout`` and ``--memory-mb`` on top;
* grading (``python -m autograder grade`` and plain ``nbgrader autograde``) reads them through
  ``SandboxLimits`` (``autograder/host/limit_settings.py``, the grader's side: a traitlets class
  made from ``LIMITS``, whose settings ``nbgrader_config.py`` may override,
  ``c.SandboxLimits.memory_mb = 4096``); ``python -m autograder settings`` prints them;
* the test-cell checks take ``check_seconds`` and ``memory_mb``.

The bounds below ``Limits`` are not settings: they size the sandbox's own machinery (how often the
watchdog looks, how large a record may be), and each says why it has its value.

This module imports nothing but the standard library (and ``gradebox.settings``, which imports no
more): the checks import it on Windows and macOS too, and the sandbox's server and every job import it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, make_dataclass

from .settings import Setting, Settings

MiB = 2**20


def _limit(name: str, kind: type, default: float, help: str) -> Setting:
    """A limit: an nbgrader setting of the grader's (``c.SandboxLimits.<name>``); a count at least 1,
    a fraction (MiB, seconds) not below 0."""
    return Setting(name, kind, default, help, "limits", trait=f"SandboxLimits.{name}", low=1 if kind is int else 0)


#: What one job may use, each limit with its default and help once (the grader's registry,
#: ``autograder/settings.py``, re-exports them; ``SandboxLimits`` and ``Limits`` are made from them).
LIMITS = Settings(
    [
        # The watchdog sums all of a job's processes every WATCH_SECONDS; it is also the address space
        # of each process.
        _limit("memory_mb", int, 2048, "MiB of memory all of one job's processes may use together"),
        # A kernel and a check child use a small part.
        _limit("max_processes", int, 128, "Processes and threads one job may run at once"),
        # Its record and its log too.
        _limit("file_size_mb", int, 64, "MiB that any one file a job writes may reach"),
        # Its working folder, home, temporary folder and /dev/shm are one private in-memory file
        # system of this size (a hard limit), and anything written elsewhere in its folder is measured
        # every DISK_SECONDS (the job is stopped above it).
        _limit("disk_mb", int, 256, "MiB that all of a job's files may take together"),
        # Every field of every message counts (text, data, error names and values, tracebacks,
        # metadata, widget buffers); past it the kernel is stopped.
        _limit("output_mb", float, 8, "MiB of output one notebook may produce, every field counted"),
        # A larger one is replaced by a note (the notebook goes on).
        _limit("output_item_mb", float, 2, "MiB one single output may hold before it is replaced by a note"),
        # All its scenarios together: a file in ``diagnose``, one ``check_*`` call in a test cell, one
        # check scored outside the notebook.
        _limit("check_seconds", float, 20, "Seconds one exercise check may take"),
        # nbgrader's ExecutePreprocessor.timeout; a test cell runs a visible and a hidden check, so
        # this is more than twice the above.
        _limit("cell_seconds", int, 60, "Seconds one notebook cell may run while grading"),
        _limit("notebook_seconds", int, 600, "Seconds all of one notebook's cells may take together"),
        # In a process of its own; a record that takes longer fails that check, and grading goes on.
        _limit("judge_seconds", float, 30, "Seconds the judge may spend reading and judging one check's records"),
        _limit("judge_memory_mb", int, 4096, "MiB of address space the judging process may use"),
    ]
)


class _Sizes:
    """The limits in bytes, for the code that sets them."""

    @property
    def memory_bytes(self) -> int:
        return int(self.memory_mb * MiB)

    @property
    def file_size_bytes(self) -> int:
        return int(self.file_size_mb * MiB)

    @property
    def disk_bytes(self) -> int:
        return int(self.disk_mb * MiB)

    @property
    def output_bytes(self) -> int:
        return int(self.output_mb * MiB)

    @property
    def output_item_bytes(self) -> int:
        return int(self.output_item_mb * MiB)

    @property
    def judge_memory_bytes(self) -> int:
        return int(self.judge_memory_mb * MiB)

    @property
    def submission_bytes(self) -> int:
        """All of a submission's files together: what the intake lets through, and what is copied
        into a kernel's folder."""
        return 4 * self.file_size_bytes

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


#: What one job may use: a frozen dataclass with one field per limit of ``LIMITS``, its default.
Limits = make_dataclass(
    "Limits",
    [(s.name, s.kind, s.default) for s in LIMITS],
    bases=(_Sizes,),
    frozen=True,
)
Limits.__module__ = __name__  # pickled and shown as gradebox.limits.Limits
Limits.__doc__ = "What one job may use (the fields and their defaults are ``LIMITS``)."

DEFAULTS = Limits()


@dataclass(frozen=True)
class RecordBounds:
    """What one record (``gradebox.record``) may hold: a scenario's record is a few KiB to a
    few hundred KiB, so these leave room while keeping a hostile one cheap to refuse."""

    max_bytes: int = 64 * MiB  # the same as a file a job may write: a record is one
    max_header_bytes: int = 8 * MiB  # the JSON structure, tensors apart
    max_nodes: int = 200_000  # values in the structure
    max_depth: int = 32  # nesting of lists and dicts
    max_tensors: int = 20_000
    max_rank: int = 8  # dimensions of one tensor
    max_frames: int = 4096  # records one job may write: a notebook's checks times their scenarios


RECORD = RecordBounds()

# ---- the sandbox's own machinery ------------------------------------------------------------

#: Files and folders a job's private file system may hold.
INODES = 20_000
#: Descriptors one job's process may hold open (a kernel uses a few dozen).
OPEN_FILES = 1024
#: Seconds of CPU a job gets beyond its wall-clock limit before the kernel stops it (RLIMIT_CPU):
#: the wall-clock limit is the one students meet; this only ends a job the watchdog missed.
CPU_GRACE_SECONDS = 5
#: Priority (nice) of every job: the grader and its server stay responsive beside busy notebooks.
NICE = 5
#: Seconds between the watchdog's looks at every job's resident memory.
WATCH_SECONDS = 0.1
#: Seconds between proportional measures of one job (they walk page tables, so they cost more).
PSS_SECONDS = 0.5
#: Seconds between measures of what a job wrote in its folder outside its private file system.
DISK_SECONDS = 0.5
#: Torch's intra-op threads in every job: jobs run side by side, one per core, so a second thread
#: per job would only compete with the next job (and OpenMP threads spin while they wait); and the
#: judge computes its references with one thread too, some of them compared bit for bit.
TORCH_THREADS = 1
#: Seconds a score job gets to start and stop around its cells and checks.
SCORE_GRACE_SECONDS = 30
