"""The warm servers' profiles: what each kind of server preloads, and the jobs it runs, as objects.

A server is started with a profile's *name* (``--profile kernel``), which is data: it is looked up
in ``PROFILES`` and refused if it is not there.  A spawn request names a *kind* of job, data too,
checked against its profile's ``jobs``.  Nothing is imported by a name that came from outside:
every job function below is imported here, normally, so that the import test
(``tests/unit/gradebox/test_layers.py``) sees every module a server can run, and nothing can ask
a server to run a module that is not on this list.

* ``kernel``: notebooks.  Its server imports what a kernel needs (and, with a template, runs the
  lesson's shared cells once); it runs a notebook's kernel (``kernel_job``) and its checks scored
  outside the kernel (``score_job``), both from the same warm namespace;
* ``exercise``: ``diagnose``.  Its server imports torch and the exercises; it runs one file's
  function through an exercise's scenarios (``exercise_job``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from . import exercise_job, kernel_job, score_job


def _no_template(kind: str) -> None:
    return None


@dataclass(frozen=True)
class Profile:
    """One kind of warm server: ``preload(options)`` runs once in the server, before it forks any
    job; ``jobs`` maps a request's kind to ``main(request, limits, work)``, which runs in the job and
    never returns; ``template_dir(kind)`` is a folder copied into each job's own before it is
    confined (what the shared cells wrote), or None."""

    preload: Callable[[dict], None]
    jobs: Mapping[str, Callable[..., None]]
    template_dir: Callable[[str], str | None] = field(default=_no_template)


PROFILES: Mapping[str, Profile] = {
    "kernel": Profile(
        kernel_job.preload, {"kernel": kernel_job.main, "score": score_job.main}, kernel_job.template_dir
    ),
    "exercise": Profile(exercise_job.preload, {"exercise": exercise_job.main}),
}
