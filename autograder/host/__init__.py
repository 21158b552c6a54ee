"""The grader's side of the sandbox: what only the grader runs, never a job.

The sandbox itself (the warm server, confine, the watchdog, the wire) is the job-side package's
(``gradebox.box``, ``gradebox.protocol``, ``gradebox.limits``).  Here is what starts and feeds it:

* ``bwrap``: the bubblewrap command that starts a server, from an allow-list: the system, the
  Python environment, ``gradebox`` and the lessons' helpers, read-only; nothing of ``autograder``;
* ``client``: the server's process and socket, the jobs it is asked for, the user-id pool;
* ``folders``: folders the grader trusts (locks, scratch): made by it or checked, never taken;
* ``limit_settings``: the limits as nbgrader settings (``SandboxLimits``), ``--jobs``'s default and
  the jobs' user ids.

No job imports anything here, and a job's file system does not hold it.
"""
