"""What runs INSIDE a sandboxed job, where student code runs.

The sandbox's server (``autograder.sandbox``) loads one of these modules by the name in a
request and calls its ``main(request, limits)``:

* ``kernel``: a notebook's ipykernel, forked warm (grading runs every notebook this way);
* ``exercise``: one Python file's function through an exercise's scenarios (``diagnose``);
* ``score``: a notebook's answer cells, then its test cells' checks (the score comes from here);

and ``run`` is what they share: running a student's function through scenarios and turning what
happened into records (``autograder.record``).

These modules know the scenarios (``autograder.exercises``) and nothing of the judge: no
reference value, no expected answer, no verdict.  The grader's judge (``autograder.judge``) is
not even on the file system a job sees.  A job sends back only what the student's code *did*:
the values it returned, the final state of the tensors, model and optimizer it was given, and
what the recorder saw along the way.  The judge recomputes everything else on its own.
"""

from __future__ import annotations

import os

# What a job may not see of the grader's own package: the judge, the grading plug-ins, the command
# line and everything that holds a right answer or a verdict.  The sandbox covers each with an
# empty read-only file system (or /dev/null for a file), for the warm server and every job alike.
# ``__pycache__`` goes too: the compiled copies of the hidden modules lie there.
GRADER_ONLY = ("judge", "grading", "cli.py", "__main__.py", "diagnose.py", "verdict.py", "codes.py", "__pycache__")


def hidden_paths() -> list[str]:
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return [os.path.join(package, name) for name in GRADER_ONLY if os.path.lexists(os.path.join(package, name))]
