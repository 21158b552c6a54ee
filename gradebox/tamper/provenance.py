"""Provenance: was every watched object defined by installed code?

It needs no earlier snapshot, so it covers what a watch cannot: student code that ran before the
grader was imported (a notebook's cells, before its first self-check).  A watched Python function
or class must have been defined under a folder of installed code (torch, the standard library,
site-packages, the grader); a replacement written in a notebook cell or a student file was
defined somewhere else.  A global hook table must be empty, and a tracer, a profiler or an import
hook must come from installed code too.  A C function cannot be defined by student code at all,
only pointed at from another name, which the watch sees.
"""

from __future__ import annotations

import os
import sys
import types

import torch

from .surfaces import GRADER_PACKAGES, HOOK_TABLES, Hook, watched_objects

TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))
GRADER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # gradebox/, not gradebox/tamper/
# The grader's package and the exercises' are installed beside this one (a clone holds all three;
# pyproject installs them together): their functions are installed code too.  Found by path, never
# imported (gradebox imports nothing of autograder); inside a job the grader's folder is not there,
# and nothing of it is loaded.
GRADER_DIRS = tuple(
    os.path.join(os.path.dirname(GRADER_DIR), name) for name in ("gradebox", "gradexercises", "autograder")
)
# Where installed code lives: torch, the standard library, site-packages and the grader.  A function
# on a watched surface defined anywhere else was written by student code (a notebook cell, a file).
GRADER_HOMES = tuple(
    {*GRADER_DIRS, TORCH_DIR, os.path.dirname(os.__file__)}
    | {os.path.dirname(os.path.dirname(TORCH_DIR))}  # site-packages
)


def provenance_problems() -> list[str]:
    """Watched objects that were not defined by installed code (torch, Python, site-packages, the
    grader): what student code that ran before the grader was imported has put there."""
    problems = []
    for name, obj in watched_objects().items():
        if isinstance(obj, Hook):
            if obj.hook is not None and not _defined_under(obj.hook, GRADER_HOMES):
                problems.append(name)
            continue
        if name in ("sys.meta_path", "sys.path_hooks"):
            hooks = sys.meta_path if name == "sys.meta_path" else sys.path_hooks
            if any(not _defined_under(h if isinstance(h, type) else type(h), GRADER_HOMES) for h in hooks):
                problems.append(name)
            continue
        if name in HOOK_TABLES:
            if obj:
                problems.append(name)  # a global hook table that someone filled
            continue
        if name.startswith(GRADER_PACKAGES) and name.rsplit(".", 1)[-1].startswith("__"):
            continue  # dunders that dataclasses and friends generate have no source file
        if isinstance(obj, (types.FunctionType, types.MethodType, type, staticmethod, classmethod, property)):
            if not _defined_under(obj, GRADER_HOMES):
                problems.append(name)
    return sorted(problems)


def _defined_under(obj, folders: tuple[str, ...]) -> bool:
    if obj is None:
        return False
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, property):
        obj = obj.fget
    if isinstance(obj, type):
        if obj.__module__ in ("builtins", "sys"):
            return True
        if obj.__module__ == "__main__":
            return False  # made in a notebook or a script
        module = sys.modules.get(obj.__module__)
        file = getattr(module, "__file__", None)
        # No file: a submodule of a compiled extension (torch._C._profiler), not student code.
        return module is not None and (file is None or os.path.abspath(file).startswith(folders))
    code = getattr(obj, "__code__", None)
    if code is None:
        # C functions, slot wrappers and method descriptors come from compiled code: student
        # code cannot define those, only point a name at another one, which the snapshot sees.
        return not isinstance(obj, (types.FunctionType, types.MethodType)) or not callable(obj)
    return os.path.abspath(code.co_filename).startswith(folders)
