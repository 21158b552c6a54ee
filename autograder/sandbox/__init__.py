"""The one sandbox that student code runs in, wherever it runs for grading.

The sandbox knows nothing of grading: it forks, confines and watches jobs, and carries their
descriptors.  What a job runs is a module of ``autograder.jobs``, named in each request.

* ``limits``: every bound and default, once (``Limits``, and the nbgrader settings over them);
* ``bwrap``: outside, the bubblewrap command that starts a server, from an allow-list;
* ``confine``: inside, what each job does to itself before student code runs;
* ``protocol``: the wire (a socket with descriptors), the anonymous files a job gets, the frames of
  its records;
* ``watchdog``: the server's watch over every job's memory and disk;
* ``server``: the warm server, inside bubblewrap, that forks every job;
* ``client``: the grader's side of that server;
* ``child``: the child process a test cell's self-check runs the student's function in, on Linux,
  macOS and Windows (not a sandbox: the student's own code in their own kernel).

Nothing here imports torch, nor anything of the grader above ``limits``.
"""

from .limits import DEFAULTS, Limits, SandboxLimits

__all__ = ["DEFAULTS", "Limits", "SandboxLimits"]
