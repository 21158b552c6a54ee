"""Every bound on student code and on what comes back from it, with its default, in one place.

``Limits`` is what one sandboxed job may use: a notebook's kernel (grading), one file's run of an
exercise (``diagnose``), a notebook's checks scored outside its kernel, or one check in a test cell
(the in-notebook self-check); and what the judge may spend on one check's records.  Its defaults
are the course's defaults; nothing else in the code states them.  A job gets its limits in its
request (``Limits(**request["limits"])``).

* ``python -m autograder diagnose`` takes them, with ``--timeout`` and ``--memory-mb`` on top;
* grading (``python -m autograder grade`` and plain ``nbgrader autograde``) reads them through
  ``SandboxLimits`` (``autograder/host/limit_settings.py``, the grader's side: a traitlets class
  whose settings ``nbgrader_config.py`` may override, ``c.SandboxLimits.memory_mb = 4096``);
* the test-cell checks take ``check_seconds`` and ``memory_mb``.

The bounds below ``Limits`` are not settings: they size the sandbox's own machinery (how often the
watchdog looks, how large a record may be), and each says why it has its value.

This module imports nothing but the standard library: the checks import it on Windows and macOS
too, and the sandbox's server and every job import it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

MiB = 2**20


@dataclass(frozen=True)
class Limits:
    """What one job may use.  Each default is the course's, documented here."""

    #: MiB of memory all of a job's processes may hold together (the watchdog sums them every
    #: WATCH_SECONDS), and the address space of each process.
    memory_mb: int = 2048
    #: Processes and threads one job may run at once (a kernel and a check child use a small part).
    max_processes: int = 128
    #: MiB that any one file the job writes may reach (its record and its log too).
    file_size_mb: int = 64
    #: MiB that all of a job's files may take together: its working folder, home, temporary folder
    #: and /dev/shm are one private in-memory file system of this size (a hard limit), and anything
    #: written elsewhere in its folder is measured every DISK_SECONDS (the job is stopped above it).
    disk_mb: int = 256
    #: MiB of output one notebook may produce before its kernel is stopped: every field of every
    #: message counts (text, data, error names and values, tracebacks, metadata, widget buffers).
    output_mb: float = 8
    #: MiB one single output may hold; a larger one is replaced by a note (the notebook goes on).
    output_item_mb: float = 2
    #: Seconds one exercise check may take, all its scenarios together: a file in ``diagnose``,
    #: one ``check_*`` call in a test cell, one check scored outside the notebook.
    check_seconds: float = 20
    #: Seconds one notebook cell may run while grading (nbgrader's ExecutePreprocessor.timeout);
    #: a test cell runs a visible and a hidden check, so this is more than twice the above.
    cell_seconds: int = 60
    #: Seconds all of one notebook's cells may take together while grading.
    notebook_seconds: int = 600
    #: Seconds the judge may spend reading and judging one check's records (in a process of its
    #: own); a record that takes longer fails that check, and grading goes on.
    judge_seconds: float = 30
    #: MiB of address space that judging process may use.
    judge_memory_mb: int = 4096

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
#: Seconds a score job gets to start and stop around its cells and checks.
SCORE_GRACE_SECONDS = 30
