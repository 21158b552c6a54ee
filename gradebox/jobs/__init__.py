"""What runs INSIDE a sandboxed job, where student code runs.

The sandbox's server (``gradebox.box.server``) is handed the table of ``profiles``: each kind of
warm server, what it preloads, and the function that runs each kind of job a request may name
(data, checked against that table; no module is loaded by its name):

* ``kernel_job``: a notebook's ipykernel, forked warm (grading runs every notebook this way);
  ``standins`` is what the notebook's ``import autograder.checks`` finds there;
* ``exercise_job``: one Python file's function through an exercise's scenarios (``diagnose``);
* ``score_job``: a notebook's answer cells, then its test cells' checks (the score comes from here);

and ``run`` is what they share: running a student's function through scenarios and turning what
happened into records (``gradebox.record``).

These modules know the scenarios (``gradebox.exercises``) and nothing of the judge: no
reference value, no expected answer, no verdict.  The grader's package (``autograder``: the judge,
grading, the CLI) is not on the file system a job sees at all; bubblewrap mounts ``gradebox``, the
lessons' helpers and the Python environment (``autograder/host/bwrap.py``).  A job sends back only
what the student's code *did*: the values it returned, the final state of the tensors, model and
optimizer it was given, and what the recorder saw along the way.  The judge recomputes everything
else on its own.
"""
