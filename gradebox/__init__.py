"""The job-side package: all that a sandboxed job may import, and the sandbox that runs it.

The course's code is two packages, one per side of the trust boundary.  This one is what runs where
student code runs (a grading kernel, a score job, ``diagnose``'s job, a child of a student's own
kernel); ``autograder``, the grader, imports it and never the reverse, and bubblewrap mounts this
package alone (with the lessons' helpers and the Python environment) into every job.

* ``box/``: the warm forking server, confine, the watchdog, the self-check's child process;
* ``serve.py``: the server's entry point, handed the job profiles as objects;
* ``jobs/``: what runs inside a job: a notebook's kernel, a file's run, the score job, and the
  table of profiles that names them; ``standins`` is what a grading kernel's
  ``import autograder.checks`` finds;
* ``exercises/``: each exercise's scenarios and its recorder (below the student's objects);
* ``tamper/``: what student code changed in torch, the optimizer or the grader (defence in depth);
* ``record.py``, ``protocol.py``, ``limits.py``: what a job sends back, the wire, the bounds;
* ``not_yet.py``, ``quick_checks.py``, ``outside_checks.py``, ``display.py``, ``i18n.py``: what a test
  cell runs in any kernel, how a verdict is shown, and the learner's language (``_locale/``, this
  package's own catalogue).

Nothing here knows a right answer: no reference value, no expected answer, no verdict (the quick
checks' keys are hashes, shipped to students too, and carry no points).
"""
