"""``ast.parse`` that a finalizer or another thread cannot make fail in the grader's process.

CPython 3.11 keeps the depth counter of its AST builder in state shared by the whole interpreter
(python/cpython#106905).  When Python code runs while a tree is being built (a finalizer the cyclic
garbage collector calls in the middle, and then any thread the interpreter switches to) and that
code parses too, the first parse ends with ``SystemError: AST constructor recursion depth
mismatch``.  The grader's process parses from several threads (``grade``'s workers read test cells
with ``ast``, and ``traceback`` parses each line it underlines), so a submission could fail
because of its neighbour's timing.

Parsing has no side effects, so the guard serialises parses and retries the one the interpreter
spoiled.  It replaces ``ast.parse`` itself, which is what ``traceback`` and nbgrader call.
"""

from __future__ import annotations

import ast
import threading

MISMATCH = "AST constructor recursion depth mismatch"
ATTEMPTS = 5

_lock = threading.RLock()  # re-entrant: a finalizer may parse in the thread that holds it
_unguarded = ast.parse


def parse(*args, **kwargs):
    for attempt in range(ATTEMPTS):
        try:
            with _lock:
                return _unguarded(*args, **kwargs)
        except SystemError as error:
            if MISMATCH not in str(error) or attempt == ATTEMPTS - 1:
                raise


parse.__doc__ = _unguarded.__doc__
parse.__wrapped__ = _unguarded


def install() -> None:
    """Make ``ast.parse`` the guarded one, in this process (again: no effect)."""
    ast.parse = parse
