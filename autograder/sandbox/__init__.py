"""The one sandbox that student code runs in, wherever it runs.

* ``limits``: every limit's default, once (``Limits``), and the nbgrader settings over them;
* ``policy``: what a job sees and may do (bubblewrap, namespaces, capabilities, limits);
* ``server``: the warm server, inside bubblewrap, that forks every job: notebook kernels for
  ``grade`` and ``nbgrader autograde``, exercise runs for ``diagnose``;
* ``client``: the grader's side of that server;
* ``child``: the child process a test cell's check runs the student's function in, on Linux,
  macOS and Windows (not a sandbox: the student's own code in their own kernel).

Nothing here imports torch; ``limits`` and ``child`` import on every platform.
"""

from .limits import DEFAULTS, Limits, SandboxLimits

__all__ = ["DEFAULTS", "Limits", "SandboxLimits"]
