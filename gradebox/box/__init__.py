"""The one sandbox that student code runs in, inside bubblewrap: its server side.

The sandbox knows nothing of grading: it forks, confines and watches jobs, and carries their
descriptors.  What a job runs is a function of a *profile* that the server is handed as an object
(``gradebox.jobs.profiles``, through ``gradebox.serve``): a request names a kind of job, which is
data checked against that table, never a module to import.

* ``server``: the warm server, inside bubblewrap, that forks every job;
* ``confine``: inside, what each job does to itself before student code runs;
* ``watchdog``: the server's watch over every job's memory and disk;
* ``child``: the child process a test cell's self-check runs the student's function in, on Linux,
  macOS and Windows (not a sandbox: the student's own code in their own kernel).

The wire (``gradebox.protocol``) and the bounds (``gradebox.limits``) sit beside this package, since
the grader's side (``autograder.host``) imports them too.  Nothing here imports torch, nor anything
of ``gradebox`` but ``protocol`` and ``limits``.
"""
