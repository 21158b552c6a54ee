"""Noticing when student code changes torch, the optimizer or the grader's own tools.

Two complementary checks, because student code can run before or during a diagnosis:

* ``start_watch`` records the identity of every watched object before student code runs and
  reports what changed afterwards (the diagnose CLI loads the student's file after taking it).
* ``provenance_problems`` needs no earlier snapshot: a watched Python function must have been
  defined inside torch's (or the grader's) own source folder.  A replacement written in a
  notebook cell or a student file is defined somewhere else.  This is what a notebook test cell
  relies on, because the student's cells ran before the grader was imported.

The sandbox's server, which never runs student code, takes one snapshot after it has imported
everything (``seal``); every job it forks inherits it, so what a job compares with is torch as
installed, and taking it costs a job nothing.  ``seal`` also makes the code of installed
functions unchangeable in those jobs (``refuse_code_changes``), which no snapshot of identities
could notice.
"""

from __future__ import annotations

import builtins
import gc
import importlib
import inspect
import os
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
_MISSING = object()

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


def _warm_up(step: bool = False) -> None:
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


def _deep_owners() -> dict[str, object]:
    """The other modules of torch, and the classes defined on its training path, by name."""
    surfaces = {id(obj) for obj in _surfaces().values()}
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


def _deep_snapshot(owners: dict[str, object]) -> dict[str, tuple[object, dict]]:
    # Copies of the dicts, taken in C: naming every attribute here would cost ten times as much.
    return {name: (obj, dict(vars(obj))) for name, obj in owners.items()}


def _deep_changes(before: dict[str, tuple[object, dict]]) -> list[str]:
    changed = []
    for owner, (obj, then) in before.items():
        if isinstance(obj, types.ModuleType) and sys.modules.get(owner, obj) is not obj:
            changed.append(owner)  # another module planted under its name: the next import finds it
            continue
        now = vars(obj)
        for name, old in then.items():
            new = now.get(name, _MISSING)
            if new is not old and not (isinstance(old, PLAIN) and isinstance(new, PLAIN)):
                changed.append(f"{owner}.{name}")
        if isinstance(obj, type):
            added = set(now) - set(then) - CACHES
            changed += [f"{owner}.{name}" for name in sorted(added) if not isinstance(now[name], PLAIN)]
    return changed


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


def _version_reader():
    """A function that reads a dict's version tag by the dict's address, or None where this
    Python does not keep one that changes with every change to the dict.

    Why: the snapshot is compared in a forked child after each scenario, and comparing it object
    by object touches every watched object (a reference count is a write), so the child copies
    every memory page that holds one: about 5,000 pages, 25 ms and most of a scenario child's
    cost.  CPython gives every dict a version tag that it changes on every insertion, deletion
    or replacement (PEP 509, ``ma_version_tag``; tested here on 3.11); reading the tags of the dicts
    that hold the watched objects touches none of them.  The layout is checked on this very
    interpreter before it is trusted: any doubt, and every comparison is the full one."""
    if sys.implementation.name != "cpython":
        return None
    try:
        import ctypes
    except ImportError:  # noqa: PERF203
        return None
    offset = _version_offset()

    def read(address: int) -> int:
        return ctypes.c_uint64.from_address(address + offset).value

    try:
        probe, module = {}, types.ModuleType("probe")
        cls = type("Probe", (), {})
        tags = [read(id(probe))]
        tags.append(read(id(probe)))
        if tags[0] != tags[1]:
            return None
        probe["a"] = 1
        tags.append(read(id(probe)))
        probe["a"] = 2
        tags.append(read(id(probe)))
        del probe["a"]
        tags.append(read(id(probe)))
        before = read(id(vars(module)))
        module.a = 1
        class_dict = _dict_of(cls)
        class_before = read(id(class_dict))
        cls.a = 1
        if len(set(tags[1:])) != 4 or read(id(vars(module))) == before or read(id(class_dict)) == class_before:
            return None
    except Exception:  # noqa: BLE001 - an interpreter laid out otherwise
        return None
    return read


def _version_offset() -> int:
    import ctypes

    # PyDictObject: PyObject_HEAD (ob_refcnt, ob_type), Py_ssize_t ma_used, uint64_t ma_version_tag.
    return 2 * ctypes.sizeof(ctypes.c_void_p) + ctypes.sizeof(ctypes.c_ssize_t)


def _tags_reader(addresses: tuple[int, ...]):
    """A function that returns the version tags of the dicts at ``addresses``, as a tensor.

    Read one by one from Python, each tag costs a ctypes object, and in a forked child those
    objects are made where the parent's memory was (pages to copy): with every module of torch
    watched (1,800 dicts), 1.2 ms a check and 15 ms for a forked child's first, on a busy
    machine.  So the span of memory from the lowest tag to the highest is seen as one tensor of
    64-bit words (nothing is read until an element is asked for), and ``index_select`` picks out
    every tag in one call, in C, with no Python object made per tag: 0.05 ms, and 0.4 ms for a
    child's first (the memory itself, cold).  The functions it calls are bound here, so student
    code that replaces ``torch.equal`` changes a watched dict and cannot answer for it.  It is
    checked against the one-by-one reads; on any difference, those are used."""
    import ctypes

    read, offset = _READ_VERSION, _version_offset()

    def one_by_one() -> torch.Tensor:
        # The tags are unsigned; the tensor holds them as signed 64-bit words, bit for bit.
        return torch.tensor([v - (1 << 64) if v >= 1 << 63 else v for v in map(read, addresses)], dtype=torch.int64)

    if not addresses:
        return one_by_one
    low = min(addresses) + offset
    span = (ctypes.c_int64 * ((max(addresses) + offset - low) // 8 + 1)).from_address(low)
    with warnings.catch_warnings():
        # frombuffer warns that writing to the tensor would write to that memory: nothing does
        warnings.simplefilter("ignore")
        words = torch.frombuffer(span, dtype=torch.int64)
    index = torch.tensor([(a + offset - low) // 8 for a in addresses], dtype=torch.int64)
    select = torch.Tensor.index_select

    def at_once() -> torch.Tensor:
        keep = span  # noqa: F841 - the tensor sees its memory through this object
        return select(words, 0, index)

    return at_once if torch.equal(at_once(), one_by_one()) else one_by_one


def _dict_of(obj) -> dict | None:
    """The dict that holds a module's or a class's attributes (for a class, the one behind the
    read-only proxy ``vars()`` gives)."""
    if isinstance(obj, types.ModuleType):
        return vars(obj)
    if isinstance(obj, type):
        found = [d for d in gc.get_referents(vars(obj)) if isinstance(d, dict)]
        return found[0] if len(found) == 1 else None
    return None


def _quick_watch(deep: dict[str, object] | None = None):
    """A check that nothing watched changed which touches no watched object (see
    ``_version_reader``), or None where it cannot be made: the dicts that hold every watched
    object keep their version tags, and what is not in such a dict (the tracer, the profiler,
    the import hooks, the grader's modules) keeps its identity.  It answers only "unchanged";
    on anything else, the full comparison runs and names the change.  ``unchanged.retag(tags)``
    makes tags read earlier (``unchanged.read_tags()``) the ones to compare with: after a full
    comparison found nothing, a change made since the tags were read is still seen."""
    read = _READ_VERSION
    if read is None:
        return None
    if deep is None:
        _warm_up(step=True)
        deep = _deep_owners()
    owners = [builtins, *_surfaces().values(), *deep.values()]
    owners += [importlib.import_module(m) for m, _ in GLOBAL_HOOK_TABLES]
    for module, path in WATCHED:  # the modules on the way (torch.utils, torch.utils.hooks); the objects
        obj = importlib.import_module(module)  # themselves are compared one by one below (a hook
        for part in path.split(".")[:-1]:  # changes RemovableHandle's dict: it counts them)
            obj = getattr(obj, part)
            if isinstance(obj, types.ModuleType):
                owners.append(obj)
    singles = {(m, p): _resolve(m, p) for m, p in WATCHED}
    grader = {n: m for n, m in list(sys.modules.items()) if n == "autograder" or n.startswith("autograder.")}
    # The modules the full comparison finds by name (sys.modules): each must stay the one it was,
    # or stay absent (a module planted under "torch.Tensor" would be found first).
    names = {".".join(d.split(".")[:i]) for d in SURFACES for i in range(1, d.count(".") + 2)}
    names |= {m for m, _ in WATCHED} | {m for m, _ in GLOBAL_HOOK_TABLES}
    names |= {n for n, o in deep.items() if isinstance(o, types.ModuleType)}
    found = {n: sys.modules.get(n) for n in names} | grader
    for module in grader.values():
        owners.append(module)
        owners += [v for v in vars(module).values() if isinstance(v, type) and v.__module__ == module.__name__]
    for owner in owners:
        # A warning (even an ignored one) raised from a module's code gives that module a
        # ``__warningregistry__``: harmless, but it would change the module's dict in every job
        # and cost each check the full comparison.  Made here, it is one change before the tags.
        if isinstance(owner, types.ModuleType):
            vars(owner).setdefault("__warningregistry__", {})
    dicts = [_dict_of(o) for o in owners]
    dicts += [getattr(importlib.import_module(m), t, None) for m, t in GLOBAL_HOOK_TABLES]
    if any(not isinstance(d, dict) for d in dicts):
        return None
    addresses = tuple(id(d) for d in dicts)
    read_all, equal = _tags_reader(addresses), torch.equal
    tags = [read_all(), read(id(sys.modules))]
    modules_address = id(sys.modules)
    gettrace, getprofile = sys.gettrace, sys.getprofile
    trace, profile = gettrace(), getprofile()
    # threading's own globals change in every forked child (it resets its thread table), so its
    # tracer is compared itself, not through its module's dict.
    thread_trace = getattr(threading, "_trace_hook", None)
    meta_path, path_hooks = list(sys.meta_path), list(sys.path_hooks)

    def unchanged() -> bool:
        keep = dicts  # noqa: F841 - holds the dicts, so that no address is reused while this lives
        if gettrace() is not trace or getprofile() is not profile:
            return False
        if getattr(threading, "_trace_hook", None) is not thread_trace:
            return False
        if any(_resolve(m, p) is not obj for (m, p), obj in singles.items()):
            return False
        for now, then in ((sys.meta_path, meta_path), (sys.path_hooks, path_hooks)):
            if len(now) != len(then) or any(a is not b for a, b in zip(now, then)):
                return False
        if not equal(read_all(), tags[0]):
            return False
        if read(modules_address) != tags[1]:  # something was imported: the grader's modules too?
            if any(sys.modules.get(n) is not m for n, m in found.items()):
                return False
            if any((n == "autograder" or n.startswith("autograder.")) and n not in grader for n in list(sys.modules)):
                return False
        return True

    def read_tags() -> list:
        return [read_all(), read(modules_address)]

    def retag(now: list) -> None:
        tags[:] = now

    unchanged.read_tags, unchanged.retag = read_tags, retag
    return unchanged


_READ_VERSION = _version_reader()


def start_watch(deep: bool = False):
    """A watch: the returned function lists what changed in torch and the grader since it was
    taken (a failure of the check itself counts as a change).  Call it before student code runs;
    it keeps working when student code replaces this module's functions.  ``deep``: also every
    other module of torch and the classes of its training path (see ``TRAINING_PATH``).  In a
    job of the sandbox's server it is the server's own deep watch (``seal``), taken before any
    student code ran; elsewhere (a student's own notebook) it watches the surfaces."""
    if _BASELINE:
        return _BASELINE[0]
    return _SEALED["_new_watch"](deep)


def _new_watch(deep: bool = False):
    # Called from the sealed namespace (``_SEALED``): the names below are its private copies.
    watched, same, deep_changes = _watched_objects, _same, _deep_changes
    if deep:
        _warm_up(step=True)
    owners = _deep_owners() if deep else {}
    before, deep = watched(), _deep_snapshot(owners)
    try:
        quick = _quick_watch(owners)
    except Exception:  # noqa: BLE001 - then every comparison is the full one
        quick = None

    def changes() -> list[str]:
        try:
            if quick is not None and quick():
                return []
            tags = quick.read_tags() if quick is not None else None
        except Exception:  # noqa: BLE001 - the full comparison below says what changed
            tags = None
        try:
            now = watched()
            changed = []
            for name, obj in before.items():
                if name not in now:  # deleted, or its owner no longer found where it was
                    changed.append(name)
                elif not same(obj, now[name]):
                    if name.endswith(".__dict__"):  # name the attributes added or removed
                        owner = name[: -len(".__dict__")]
                        changed += [f"{owner}.{a}" for a in sorted(set(now[name]) ^ set(obj))] or [name]
                    else:
                        changed.append(name)
            changed += deep_changes(deep)
        except Exception:  # noqa: BLE001 - the check was broken from outside
            return ["the grader's own tamper check"]
        changed += [name for name in now if name not in before and name.startswith("autograder")]
        if not changed and tags is not None:
            # Nothing that matters changed (torch imported a submodule, counted a hook): compare
            # with the tags of now from here on, so that the next check is a quick one again.
            quick.retag(tags)
        return sorted(changed)

    return changes


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
    standard library cannot be replaced or deleted (``PermissionError``).

    Why: a function whose ``__code__`` is replaced keeps its identity, so no snapshot of
    identities sees it, yet ``torch.Tensor.backward`` with the code of a function that first
    clears every gradient makes a loop that never clears look right.  CPython raises an audit
    event for each of these assignments (PEP 578), an audit hook may refuse it, and a hook cannot
    be removed from Python.  Functions made later (by ``torch.compile``, by student code) stay free."""
    homes, function = (_TORCH_DIR, _GRADER_DIR, os.path.dirname(os.__file__)), types.FunctionType
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


_BASELINE: list = []  # the server's watch (``seal``), inherited by every job it forks


def seal() -> None:
    """In the sandbox's server, once it has imported everything and before it forks any job:
    take the watch every job compares with, and refuse changes to installed functions' code."""
    if not _BASELINE:
        _BASELINE.append(_SEALED["_new_watch"](deep=True))
        refuse_code_changes()


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
