"""Every limit on student code, with its default, in one place.

``Limits`` is what one sandboxed job may use: a notebook's kernel (grading), one file's run of an
exercise (``diagnose``), or one check in a test cell (the in-notebook self-check).  Its defaults
are the course's defaults; nothing else in the code states them.

* ``python -m autograder diagnose`` takes them, with ``--timeout`` and ``--memory-mb`` on top;
* grading (``python -m autograder grade`` and plain ``nbgrader autograde``) reads them through
  ``SandboxLimits``, a traitlets class whose settings ``nbgrader_config.py`` may override
  (``c.SandboxLimits.memory_mb = 4096``);
* the test-cell checks take ``check_seconds`` and ``memory_mb``.

This module imports neither torch nor anything platform-specific: the checks import it on
Windows and macOS too.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from traitlets import Float, Integer
from traitlets.config import Configurable

MiB = 2**20


@dataclass(frozen=True)
class Limits:
    """What one job may use.  Each default is the course's, documented here."""

    #: MiB of memory all of a job's processes may hold together (a watchdog in the sandbox's
    #: server sums them every 0.1 s), and the address space of each process.
    memory_mb: int = 2048
    #: Processes and threads one job may run at once (a kernel and a check child use about 25).
    max_processes: int = 128
    #: MiB that any one file the job writes may reach.
    file_size_mb: int = 64
    #: MiB that all of a job's files may take together: its working folder, home, temporary folder
    #: and /dev/shm are one private in-memory file system of this size (a hard limit), and anything
    #: written elsewhere in its folder is measured every half second (the job is stopped above it).
    disk_mb: int = 256
    #: MiB of output (text and images) one notebook may produce before its kernel is stopped.
    output_mb: float = 8
    #: Seconds one exercise check may take, all its scenarios together: a file in ``diagnose``,
    #: one ``check_*`` call in a test cell, one check scored outside the notebook.
    check_seconds: float = 20
    #: Seconds one notebook cell may run while grading (nbgrader's ExecutePreprocessor.timeout);
    #: a test cell runs a visible and a hidden check, so this is more than twice the above.
    cell_seconds: int = 60
    #: Seconds all of one notebook's cells may take together while grading.
    notebook_seconds: int = 600

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

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


DEFAULTS = Limits()


def _trait(kind, name: str, unit: str):
    return kind(getattr(DEFAULTS, name), help=f"{unit} (default in autograder/sandbox/limits.py).").tag(config=True)


class SandboxLimits(Configurable):
    """The limits as nbgrader settings: ``c.SandboxLimits.<name>`` in nbgrader_config.py."""

    memory_mb = _trait(Integer, "memory_mb", "MiB that all of one notebook's processes may use together")
    max_processes = _trait(Integer, "max_processes", "Processes and threads one notebook may run at once")
    file_size_mb = _trait(Integer, "file_size_mb", "MiB that any file a notebook writes may reach")
    disk_mb = _trait(Integer, "disk_mb", "MiB that all of a notebook's files may take together")
    output_mb = _trait(Float, "output_mb", "MiB of output (text and images) one notebook may produce")
    check_seconds = _trait(Float, "check_seconds", "Seconds one exercise check may take")
    cell_seconds = _trait(Integer, "cell_seconds", "Seconds one cell may run")
    notebook_seconds = _trait(Integer, "notebook_seconds", "Seconds all of one notebook's cells may take together")

    def limits(self) -> Limits:
        return Limits(**{f.name: getattr(self, f.name) for f in fields(Limits)})
