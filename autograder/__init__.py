"""Behavioural grading for the PyTorch autograd course: the grader.

Student functions are judged by what they do in instrumented runs, never by their source text.
The notebook checks live in ``autograder.checks``; the command line in ``autograder.cli``.

This package is the grader's side of the trust boundary: it is never on a sandboxed job's file
system.  What a job may import (the sandbox's server, the jobs, the exercises' scenarios and
recorders, the tamper watch, the record format) is the job-side package, ``gradebox``, which this
one imports and which never imports this one.
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
