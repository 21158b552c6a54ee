"""Noticing when student code changes torch, the optimizer or the grader's own tools.

Two complementary checks, because student code can run before or during a diagnosis:

* ``start_watch`` records the identity of every watched object before student code runs and
  reports what changed afterwards (the diagnose CLI loads the student's file after taking it).
* ``provenance_problems`` needs no earlier snapshot: a watched Python function must have been
  defined inside torch's (or the grader's) own source folder.  A replacement written in a
  notebook cell or a student file is defined somewhere else.  This is what a notebook test cell
  relies on, because the student's cells ran before the grader was imported.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import os
import sys
import threading
import types

import torch

# Whole surfaces (a module or a class, by dotted path) every attribute of which must keep its
# identity while student code runs: what the recorder, the scenarios and the checks rely on, and
# what a student could patch to change what they see (``torch.Tensor.__sub__``, an optimizer's
# ``step``, ``clip_grad_norm_``, ``builtins.float``).  Subclasses of nn.Module and of Optimizer
# are added below, all of them.
SURFACES = (
    "torch",
    "torch.Tensor",
    "torch._C.TensorBase",
    "torch.autograd",
    "torch.autograd.function.Function",
    "torch.autograd.grad_mode",
    "torch.autograd.grad_mode.no_grad",
    "torch.autograd.grad_mode.enable_grad",
    "torch.autograd.grad_mode.set_grad_enabled",
    "torch.nn",
    "torch.nn.Module",
    "torch.nn.Parameter",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.nn.utils",
    "torch.nn.utils.clip_grad",
    "torch.optim",
    "torch.optim.Optimizer",
)
# Names Python itself adds to a class on first use: copyreg caches __slotnames__ when a tensor is pickled.
CACHES = {"__slotnames__"}
# Builtins the judge and the recorder use, whatever else a notebook's display hook puts there (``_``).
BUILTINS = tuple(name for name in dir(builtins) if not name.startswith("_")) + ("__import__", "__build_class__")

# (module path, attribute path) pairs outside those surfaces whose identity must not change.
WATCHED = (
    ("torch", "save"),
    ("torch", "load"),
    ("torch", "utils.hooks.RemovableHandle.remove"),  # not the whole class: next_id counts hooks
)

# Global hook registries: student code can slip behaviour into every optimizer or module
# through them without replacing a single function.
GLOBAL_HOOK_TABLES = (
    ("torch.optim.optimizer", "_global_optimizer_pre_hooks"),
    ("torch.optim.optimizer", "_global_optimizer_post_hooks"),
    ("torch.nn.modules.module", "_global_forward_pre_hooks"),
    ("torch.nn.modules.module", "_global_forward_hooks"),
    ("torch.nn.modules.module", "_global_backward_hooks"),
    ("torch.nn.modules.module", "_global_backward_pre_hooks"),
    ("torch.nn.modules.module", "_global_parameter_registration_hooks"),
)

_HOOK_TABLES = {f"{module}.{table}" for module, table in GLOBAL_HOOK_TABLES}
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))
_GRADER_DIR = os.path.dirname(os.path.abspath(__file__))
# Where installed code lives: torch, the standard library, site-packages and the grader.  A function
# on a watched surface defined anywhere else was written by student code (a notebook cell, a file).
_GRADER_HOMES = tuple(
    {_GRADER_DIR, _TORCH_DIR, os.path.dirname(os.__file__)}
    | {os.path.dirname(os.path.dirname(_TORCH_DIR))}  # site-packages
)


def _resolve(module: str, path: str):
    obj = importlib.import_module(module)
    *owners, last = path.split(".")
    for part in owners:
        obj = getattr(obj, part)
    # getattr_static: a classmethod looked up normally is a new bound method every time.
    return inspect.getattr_static(obj, last)


def _object(dotted: str):
    """A module or a class by dotted path (the longest importable prefix, then attributes)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(dotted)


def _surfaces() -> dict[str, object]:
    """Every watched module or class by name: the fixed list, every nn.Module and Optimizer class."""
    found = {name: _object(name) for name in SURFACES}
    for module in (torch.nn, torch.optim):
        for name, value in list(vars(module).items()):
            if isinstance(value, type) and issubclass(value, (torch.nn.Module, torch.optim.Optimizer)):
                found.setdefault(f"{module.__name__}.{name}", value)
    return found


def _warm_up() -> None:
    """Let torch finish its own lazy patching before any snapshot: the first optimizer of a
    class wraps that class's ``step`` once (``Optimizer._patch_step_function``)."""
    weight = torch.nn.Parameter(torch.zeros(1))
    for _, optimizer in sorted(vars(torch.optim).items()):
        if (
            isinstance(optimizer, type)
            and issubclass(optimizer, torch.optim.Optimizer)
            and optimizer is not torch.optim.Optimizer
        ):
            try:
                optimizer([weight], lr=0.1)
            except Exception:  # noqa: BLE001 - an optimizer that needs other arguments is patched on first use
                pass


_warm_up()


def _grader_functions() -> dict[str, object]:
    """Every function and class attribute defined in the grader's own modules."""
    found = {}
    for name, module in list(sys.modules.items()):
        if not (name == "autograder" or name.startswith("autograder.")) or module is None:
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, (types.FunctionType, type)):
                found[f"{name}.{attr}"] = value
                if isinstance(value, type) and value.__module__ == name:
                    for member, inner in list(vars(value).items()):
                        if isinstance(inner, (types.FunctionType, staticmethod, classmethod, property)):
                            found[f"{name}.{attr}.{member}"] = inner
    return found


def _watched_objects() -> dict[str, object]:
    objects = {}
    for owner, obj in _surfaces().items():
        for name, value in list(vars(obj).items()):
            objects[f"{owner}.{name}"] = value
        if isinstance(obj, type):
            # A new attribute on a class can shadow an inherited one (Tensor.__sub__ comes from
            # TensorBase): the set of names is watched too.  Modules gain names as torch imports
            # its parts lazily, so theirs is not.
            objects[f"{owner}.__dict__"] = tuple(sorted(set(vars(obj)) - CACHES))
    for name in BUILTINS:
        objects[f"builtins.{name}"] = getattr(builtins, name, None)
    for module, path in WATCHED:
        try:
            objects[f"{module}.{path}"] = _resolve(module, path)
        except (AttributeError, ImportError):
            objects[f"{module}.{path}"] = None  # missing now: a deletion shows up as a change
    for module, table in GLOBAL_HOOK_TABLES:
        hooks = getattr(importlib.import_module(module), table, {})
        objects[f"{module}.{table}"] = tuple(sorted(id(h) for h in hooks.values()))
    # What sees every line or every import: a tracer, a profiler, an import hook.
    objects["sys.settrace"] = _Hook(sys.gettrace())
    objects["sys.setprofile"] = _Hook(sys.getprofile())
    objects["threading.settrace"] = _Hook(getattr(threading, "_trace_hook", None))
    objects["sys.meta_path"] = tuple(id(f) for f in sys.meta_path)
    objects["sys.path_hooks"] = tuple(id(h) for h in sys.path_hooks)
    objects.update(_grader_functions())
    return objects


class _Hook:
    """A tracer or profiler seen in a snapshot: compared by identity, and a problem if it was
    defined outside installed code."""

    def __init__(self, hook) -> None:
        self.hook = hook

    def __eq__(self, other) -> bool:
        return isinstance(other, _Hook) and self.hook is other.hook

    __hash__ = object.__hash__


def _same(a, b) -> bool:
    # Hook tables and hooks are compared by content; everything else by identity.  The snapshot
    # holds the objects themselves, not their id(): a replaced function can be freed and its id
    # reused by the replacement.
    return a == b if isinstance(a, (tuple, _Hook)) else a is b


def provenance_problems() -> list[str]:
    """Watched objects that were not defined by installed code (torch, Python, site-packages, the
    grader): what student code that ran before the grader was imported has put there."""
    problems = []
    for name, obj in _watched_objects().items():
        if isinstance(obj, _Hook):
            if obj.hook is not None and not _defined_under(obj.hook, _GRADER_HOMES):
                problems.append(name)
            continue
        if name in ("sys.meta_path", "sys.path_hooks"):
            hooks = sys.meta_path if name == "sys.meta_path" else sys.path_hooks
            if any(not _defined_under(h if isinstance(h, type) else type(h), _GRADER_HOMES) for h in hooks):
                problems.append(name)
            continue
        if name in _HOOK_TABLES:
            if obj:
                problems.append(name)  # a global hook table that someone filled
            continue
        if name.startswith("autograder") and name.rsplit(".", 1)[-1].startswith("__"):
            continue  # dunders that dataclasses and friends generate have no source file
        if isinstance(obj, (types.FunctionType, types.MethodType, type, staticmethod, classmethod, property)):
            if not _defined_under(obj, _GRADER_HOMES):
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


def describe(names: list[str], limit: int = 3) -> str:
    shown = ", ".join(names[:limit])
    more = len(names) - limit
    return shown + (f" and {more} more" if more > 0 else "")


def _sealed_namespace() -> dict:
    """A private copy of this module's globals in which its functions are rebuilt.

    Student code can replace ``autograder.tamper._watched_objects`` (or any other function
    here) in the module; functions rebuilt over a private dict keep using the originals."""
    private = dict(globals())
    for name, obj in list(private.items()):
        if isinstance(obj, types.FunctionType) and obj.__module__ == __name__:
            private[name] = types.FunctionType(obj.__code__, private, obj.__name__, obj.__defaults__, obj.__closure__)
    return private


_SEALED = _sealed_namespace()


def start_watch():
    """Take a snapshot now; the returned function lists what changed since.  Call it before
    student code runs: it keeps working when student code replaces this module's functions,
    and a failure of the check itself counts as a change."""
    watched, same = _SEALED["_watched_objects"], _SEALED["_same"]
    before = watched()

    def changes() -> list[str]:
        try:
            now = watched()
            changed = []
            for name, obj in before.items():
                if name in now and not same(obj, now[name]):
                    if name.endswith(".__dict__"):  # name the attributes added or removed
                        owner = name[: -len(".__dict__")]
                        changed += [f"{owner}.{a}" for a in sorted(set(now[name]) ^ set(obj))] or [name]
                    else:
                        changed.append(name)
        except Exception:  # noqa: BLE001 - the check was broken from outside
            return ["the grader's own tamper check"]
        changed += [name for name in now if name not in before and name.startswith("autograder")]
        return sorted(changed)

    return changes
