"""The limits as the grader's settings: what only the grader reads, over ``gradebox.limits``.

``gradebox.limits.Limits`` is what one job may use, with every default once; a job reads it from its
request.  What a job never needs lives here, in the grader:

* ``SandboxLimits``: the same limits as nbgrader settings, ``c.SandboxLimits.<name>`` in
  nbgrader_config.py (a traitlets class: the job side does not import traitlets for it);
* ``DEFAULT_JOBS``: how many submissions or files are graded at once unless told;
* ``FIRST_UID``, ``UIDS``: the user ids the grader hands to jobs when it is root.
"""

from __future__ import annotations

import os
from dataclasses import fields

from traitlets import Float, Integer
from traitlets.config import Configurable

from gradebox.limits import DEFAULTS, Limits

#: User ids for jobs when the grader is root: one per running job, locked machine-wide.
FIRST_UID, UIDS = 61000, 2000


#: Submissions graded, or files diagnosed, at once unless told: ``--jobs`` of ``python -m
#: autograder grade`` and ``diagnose``, ``Grader(jobs=)``, ``diagnose_files(jobs=)`` and the
#: benchmarks (0 means this default too).  One more than the CPUs: each submission's thread waits
#: on its kernel's replies and on its score job, so with one per CPU part of the CPU stayed idle
#: (benchmarks/grade_throughput.py shows it).  The only place this default is stated.
DEFAULT_JOBS = (os.cpu_count() or 1) + 1
#: ``DEFAULT_JOBS`` in words, for the help of every ``--jobs`` option.
DEFAULT_JOBS_RULE = "one more than the CPUs"


def _trait(kind, name: str, unit: str):
    return kind(getattr(DEFAULTS, name), help=f"{unit} (default in gradebox/limits.py).").tag(config=True)


class SandboxLimits(Configurable):
    """The limits as nbgrader settings: ``c.SandboxLimits.<name>`` in nbgrader_config.py."""

    memory_mb = _trait(Integer, "memory_mb", "MiB that all of one notebook's processes may use together")
    max_processes = _trait(Integer, "max_processes", "Processes and threads one notebook may run at once")
    file_size_mb = _trait(Integer, "file_size_mb", "MiB that any file a notebook writes may reach")
    disk_mb = _trait(Integer, "disk_mb", "MiB that all of a notebook's files may take together")
    output_mb = _trait(Float, "output_mb", "MiB of output one notebook may produce, every field counted")
    output_item_mb = _trait(Float, "output_item_mb", "MiB one single output may hold before it is replaced by a note")
    check_seconds = _trait(Float, "check_seconds", "Seconds one exercise check may take")
    cell_seconds = _trait(Integer, "cell_seconds", "Seconds one cell may run")
    notebook_seconds = _trait(Integer, "notebook_seconds", "Seconds all of one notebook's cells may take together")
    judge_seconds = _trait(Float, "judge_seconds", "Seconds the judge may spend on one check's records")
    judge_memory_mb = _trait(Integer, "judge_memory_mb", "MiB of address space the judging process may use")

    def limits(self) -> Limits:
        return Limits(**{f.name: getattr(self, f.name) for f in fields(Limits)})
