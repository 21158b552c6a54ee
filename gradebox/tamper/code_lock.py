"""The code lock: while grading, installed functions keep their code.

A function whose ``__code__`` is replaced keeps its identity, so no snapshot of identities (the
watch) sees it, yet ``torch.Tensor.backward`` with the code of a function that first clears every
gradient makes a loop that never clears look right.  CPython raises an audit event for each such
assignment (PEP 578), an audit hook may refuse it, and a hook cannot be removed from Python:
``refuse_code_changes`` adds one that refuses new code, defaults and keyword defaults for every
function that torch, the grader or the standard library had defined by then, in this process and
every process it forks.  The hook looks nothing up in a namespace (what it uses is in its own
defaults), so replacing a builtin or editing a module's globals cannot blind it.  Functions made
later (by ``torch.compile``, by student code) stay free.
"""

from __future__ import annotations

import gc
import os
import sys
import types

from .provenance import GRADER_DIRS, TORCH_DIR

_CODE_ATTRIBUTES = frozenset({"__code__", "__defaults__", "__kwdefaults__"})


def _refuse(event, args, protected=frozenset(), names=_CODE_ATTRIBUTES, own=None, ident=id, count=len,
            refused=PermissionError):  # fmt: skip
    # An audit hook (see refuse_code_changes).  It looks nothing up in a namespace: what it uses
    # is in its defaults, so replacing a builtin or editing a module's globals cannot blind it.
    if event == "object.__setattr__" and count(args) == 3 or event == "object.__delattr__" and count(args) == 2:
        if args[1] in names and (ident(args[0]) in protected or args[0].__code__ is own):
            raise refused(
                f"while grading, the code of torch's and the grader's own functions cannot be changed "
                f"(this code tried to set {args[0].__qualname__}.{args[1]})"
            )


def refuse_code_changes() -> None:
    """From now on, in this process and every process it forks: the code, defaults and keyword
    defaults of every function that exists now and was defined by torch, the grader or Python's
    standard library cannot be replaced or deleted (``PermissionError``).  Why, and how: see the
    module's docstring.  Functions made later (by ``torch.compile``, by student code) stay free."""
    homes, function = (TORCH_DIR, *GRADER_DIRS, os.path.dirname(os.__file__)), types.FunctionType
    installed = tuple(f for f in gc.get_objects() if type(f) is function and f.__code__.co_filename.startswith(homes))
    _INSTALLED.append(installed)  # kept alive: no id in the set can be reused by a new function
    hook = types.FunctionType(
        _refuse.__code__,
        {"__builtins__": {}},
        "refuse_code_changes",
        (frozenset(map(id, installed)), _CODE_ATTRIBUTES, _refuse.__code__, id, len, PermissionError),
    )
    sys.addaudithook(hook)


_INSTALLED: list = []
