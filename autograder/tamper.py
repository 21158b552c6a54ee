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
import types

import torch

# (module path, attribute path) pairs whose identity must not change while grading.
WATCHED = (
    ("torch", "Tensor.backward"),
    ("torch", "Tensor.register_hook"),
    ("torch", "Tensor.register_post_accumulate_grad_hook"),
    ("torch", "Tensor.zero_"),
    ("torch", "Tensor.item"),
    ("torch", "Tensor.clone"),
    ("torch", "Tensor.detach"),
    ("torch", "Tensor.__float__"),
    ("torch", "autograd.backward"),
    ("torch", "autograd.grad"),
    ("torch", "autograd.function.Function.apply"),
    ("torch", "allclose"),
    ("torch", "equal"),
    ("torch", "is_grad_enabled"),
    ("torch", "set_grad_enabled"),
    ("torch", "no_grad"),
    ("torch", "enable_grad"),
    ("torch", "save"),
    ("torch", "load"),
    ("torch", "optim.Optimizer.step"),
    ("torch", "optim.Optimizer.zero_grad"),
    ("torch", "optim.Optimizer.register_step_pre_hook"),
    ("torch", "optim.Optimizer.profile_hook_step"),
    ("torch", "optim.Optimizer.__init__"),
    ("torch", "optim.SGD.step"),
    ("torch", "optim.SGD.__init__"),
    ("torch", "optim.Adam.step"),
    ("torch", "optim.Adam.__init__"),
    ("torch", "nn.Module.__call__"),
    ("torch", "nn.Module._call_impl"),
    ("torch", "nn.Module._wrapped_call_impl"),
    ("torch", "nn.Module.zero_grad"),
    ("torch", "nn.Module.parameters"),
    ("torch", "nn.Module.named_parameters"),
    ("torch", "nn.Module.register_forward_pre_hook"),
    ("torch", "nn.Module.forward"),
    ("torch", "nn.Module.train"),
    ("torch", "nn.Module.eval"),
    ("torch", "nn.Module.requires_grad_"),
    ("torch", "Tensor.requires_grad_"),
    ("torch", "inference_mode"),
    ("torch", "autograd.gradcheck"),
    ("torch", "autograd.grad_mode.no_grad.__enter__"),
    ("torch", "autograd.grad_mode.set_grad_enabled.__init__"),
    ("torch", "nn.Linear.forward"),
    ("torch", "nn.functional.linear"),
    ("torch", "nn.functional.mse_loss"),
    ("torch", "nn.functional.cross_entropy"),
    ("torch", "nn.MSELoss.forward"),
    ("torch", "nn.CrossEntropyLoss.forward"),
    ("builtins", "float"),
    ("builtins", "isinstance"),
    ("builtins", "len"),
    ("builtins", "id"),
    ("builtins", "getattr"),
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

_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))
_GRADER_DIR = os.path.dirname(os.path.abspath(__file__))
_GRADER_HOMES = tuple(
    {_GRADER_DIR, _TORCH_DIR, os.path.dirname(os.__file__)}
    | {os.path.dirname(os.path.dirname(_TORCH_DIR))}  # site-packages
)
_BUILTIN_ORIGINALS = {name: getattr(builtins, name) for name in ("float", "isinstance", "len", "id", "getattr")}


def _resolve(module: str, path: str):
    obj = importlib.import_module(module)
    *owners, last = path.split(".")
    for part in owners:
        obj = getattr(obj, part)
    # getattr_static: a classmethod looked up normally is a new bound method every time.
    return inspect.getattr_static(obj, last)


def _warm_up() -> None:
    """Let torch finish its own lazy patching before any snapshot: the first optimizer of a
    class wraps that class's ``step`` once (``Optimizer._patch_step_function``)."""
    weight = torch.nn.Parameter(torch.zeros(1))
    for optimizer in (torch.optim.SGD, torch.optim.Adam):
        optimizer([weight], lr=0.1)


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
    for module, path in WATCHED:
        try:
            objects[f"{module}.{path}"] = _resolve(module, path)
        except (AttributeError, ImportError):
            objects[f"{module}.{path}"] = None  # missing now: a deletion shows up as a change
    for module, table in GLOBAL_HOOK_TABLES:
        hooks = getattr(importlib.import_module(module), table, {})
        objects[f"{module}.{table}"] = tuple(sorted(id(h) for h in hooks.values()))
    objects.update(_grader_functions())
    return objects


def _same(a, b) -> bool:
    # Hook tables are compared by content; everything else by identity.  The snapshot holds
    # the objects themselves, not their id(): a replaced function can be freed and its id
    # reused by the replacement.
    return a == b if isinstance(a, tuple) else a is b


def provenance_problems() -> list[str]:
    """Watched objects that were not defined by torch, Python or the grader itself."""
    problems = []
    for name, obj in _watched_objects().items():
        if isinstance(obj, tuple):
            if obj:
                problems.append(name)  # a global hook table that someone filled
            continue
        if name.startswith("builtins."):
            if obj is not _BUILTIN_ORIGINALS[name.split(".", 1)[1]]:
                problems.append(name)
            continue
        if name.startswith("autograder") and name.rsplit(".", 1)[-1].startswith("__"):
            continue  # dunders that dataclasses and friends generate have no source file
        # Grader modules also hold what they imported from the standard library.
        homes = _GRADER_HOMES if name.startswith("autograder") else (_TORCH_DIR,)
        if not _defined_under(obj, homes):
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
        module = sys.modules.get(obj.__module__)
        file = getattr(module, "__file__", None)
        return file is None or os.path.abspath(file).startswith(folders)
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
            changed = [name for name, obj in before.items() if name in now and not same(obj, now[name])]
        except Exception:  # noqa: BLE001 - the check was broken from outside
            return ["the grader's own tamper check"]
        changed += [name for name in now if name not in before and name.startswith("autograder")]
        return sorted(changed)

    return changes
