"""Behavioural grading for the PyTorch autograd course.

Student functions are judged by what they do in instrumented runs, never by their source text.
The notebook checks live in ``autograder.checks``; the command line in ``autograder.cli``.
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
