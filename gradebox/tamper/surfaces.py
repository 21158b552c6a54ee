"""What the tamper watch watches, read into one snapshot.

Whole *surfaces* (a module or a class every attribute of which must keep its identity), the
builtins, a few single objects, torch's global hook tables, the tracer, the profiler and the import
hooks, and every function and class of the grader's own modules: ``watched_objects()`` reads them
all into one dict, name -> object, which the watch compares and provenance checks.  Everything else
torch is made of (``deep_owners()``: its other modules, the classes of its training path) is
watched more loosely, by a deep watch: there a name whose value was and stays plain data may
change (torch keeps flags and counters in some of them); any other value must keep its identity.

What torch does lazily on first use (the first optimizer of a class wraps that class's ``step``)
must happen before any snapshot, or torch's own work would look like a change: ``warm_up`` does
it, once when this module is imported, and again with a training step before a deep watch.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import sys
import threading
import types
import warnings

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
#: The packages whose modules are the grader's own: the job side, the exercises (their declarations and
#: job sides; their judges in a student's own kernel), and the grader (in a student's own kernel, and as
#: the stand-ins a grading kernel's `import autograder` finds, gradebox.jobs.standins).
GRADER_PACKAGES = ("gradebox", "gradexercises", "autograder")


def is_grader_module(name: str) -> bool:
    """Is ``name`` (a key of sys.modules) one of the grader's modules?"""
    return name in GRADER_PACKAGES or name.startswith(tuple(f"{p}." for p in GRADER_PACKAGES))


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

HOOK_TABLES = {f"{module}.{table}" for module, table in GLOBAL_HOOK_TABLES}
# Everything else torch is made of is watched too, more loosely: every other module of torch
# (``torch.autograd.graph``, whose ``Variable`` runs every backward; ``torch._C._nn``, whose
# functions compute the losses; ``torch.optim.sgd``, whose ``_single_tensor_sgd`` does SGD's
# step) and the classes defined on the training path.  Replacing one of these reshapes training
# just as well as patching ``torch.Tensor``.  Torch keeps flags and counters in some of them
# (``RemovableHandle.next_id``, a lazily checked profiler flag), so a name whose value was and
# stays plain data may change; any other value must keep its identity, and no class may gain a
# name that is not plain data.  Modules gain submodules as torch imports them lazily: their new
# names are not changes.
TRAINING_PATH = ("torch.autograd", "torch.optim", "torch.nn", "torch._tensor", "torch.utils.hooks", "torch._C")
PLAIN = (type(None), bool, int, float, complex, str, bytes)
# Classes torch writes to on every use (RemovableHandle counts the hooks made): what of them
# matters is in WATCHED, and their dicts' version tags would send every check the slow way.
VOLATILE = {"torch.utils.hooks.RemovableHandle"}


def resolve(module: str, path: str):
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


def watched_surfaces() -> dict[str, object]:
    """Every watched module or class by name: the fixed list, every nn.Module and Optimizer class."""
    found = {name: _object(name) for name in SURFACES}
    for module in (torch.nn, torch.optim):
        for name, value in list(vars(module).items()):
            if isinstance(value, type) and issubclass(value, (torch.nn.Module, torch.optim.Optimizer)):
                found.setdefault(f"{module.__name__}.{name}", value)
    return found


def warm_up(step: bool = False) -> None:
    """Let torch finish its own lazy work before any snapshot: the first optimizer of a class
    wraps that class's ``step`` once (``Optimizer._patch_step_function``).  ``step``: also take
    a first training step with each, before a deep watch, which compares the modules where that
    step sets names (it looks once for a GPU profiler: ``torch.autograd.profiler._cupti_monitor_module``)."""
    weight = torch.nn.Parameter(torch.zeros(1))

    def loss():
        value = (weight * weight).sum()
        value.backward()
        return value

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an optimizer that warns about its arguments
        for _, optimizer in sorted(vars(torch.optim).items()):
            if not (isinstance(optimizer, type) and issubclass(optimizer, torch.optim.Optimizer)):
                continue
            try:  # the base class too: it fails at once, like any optimizer that needs other arguments
                made = optimizer([weight], lr=0.1)
                if step:
                    made.step(loss)
                    made.zero_grad()
            except Exception:  # noqa: BLE001, S112 - an optimizer that needs other arguments is patched on first use
                continue


warm_up()


def _grader_functions() -> dict[str, object]:
    """Every function and class attribute defined in the grader's own modules, and the functions of
    torch's C core a module keeps under a name of its own (a recorder reads the grad mode and the
    mode stacks through names taken at import: rebinding one would blind it)."""
    found = {}
    for name, module in list(sys.modules.items()):
        if not is_grader_module(name) or module is None:
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, (types.BuiltinFunctionType, types.MethodWrapperType)):
                found[f"{name}.{attr}"] = value
            elif isinstance(value, (types.FunctionType, type)):
                found[f"{name}.{attr}"] = value
                if isinstance(value, type) and value.__module__ == name:
                    for member, inner in list(vars(value).items()):
                        if isinstance(inner, (types.FunctionType, staticmethod, classmethod, property)):
                            found[f"{name}.{attr}.{member}"] = inner
    return found


def deep_owners() -> dict[str, object]:
    """The other modules of torch, and the classes defined on its training path, by name."""
    surfaces = {id(obj) for obj in watched_surfaces().values()}
    found = {}
    for name, module in list(sys.modules.items()):
        if not (name == "torch" or name.startswith("torch.")) or not isinstance(module, types.ModuleType):
            continue
        if id(module) not in surfaces:
            found.setdefault(name, module)
        if not name.startswith(TRAINING_PATH):
            continue  # a class of the training path is found in its own module, on the path too
        for value in list(vars(module).values()):
            # type(value), not isinstance: torch.distributed.reduce_op warns when asked for its __class__
            if not issubclass(type(value), type):
                continue
            home = getattr(value, "__module__", None)
            if isinstance(home, str) and home.startswith(TRAINING_PATH) and id(value) not in surfaces:
                qualified = f"{home}.{value.__qualname__}"
                if qualified not in VOLATILE:
                    found.setdefault(qualified, value)
    return found


def watched_objects() -> dict[str, object]:
    objects = {}
    for owner, obj in watched_surfaces().items():
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
            objects[f"{module}.{path}"] = resolve(module, path)
        except (AttributeError, ImportError):
            objects[f"{module}.{path}"] = None  # missing now: a deletion shows up as a change
    for module, table in GLOBAL_HOOK_TABLES:
        hooks = getattr(importlib.import_module(module), table, {})
        objects[f"{module}.{table}"] = tuple(sorted(id(h) for h in hooks.values()))
    # What sees every line or every import: a tracer, a profiler, an import hook.
    objects["sys.settrace"] = Hook(sys.gettrace())
    objects["sys.setprofile"] = Hook(sys.getprofile())
    objects["threading.settrace"] = Hook(getattr(threading, "_trace_hook", None))
    objects["sys.meta_path"] = tuple(id(f) for f in sys.meta_path)
    objects["sys.path_hooks"] = tuple(id(h) for h in sys.path_hooks)
    objects.update(_grader_functions())
    return objects


class Hook:
    """A tracer or profiler seen in a snapshot: compared by identity, and a problem if it was
    defined outside installed code."""

    def __init__(self, hook) -> None:
        self.hook = hook

    def __eq__(self, other) -> bool:
        return isinstance(other, Hook) and self.hook is other.hook

    __hash__ = object.__hash__
