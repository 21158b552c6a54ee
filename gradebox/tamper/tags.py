"""The quick check: has anything the watch watches changed?  Answered without touching a single
watched object.

Why: the watch is compared in a forked child after each scenario, and comparing it object by
object touches every watched object (a reference count is a write), so the child copies every
memory page that holds one: most of a scenario child's cost.  CPython gives every dict a version
tag that it changes on every insertion, deletion or replacement (PEP 509, ``ma_version_tag``);
reading the tags of the dicts that hold the watched objects touches none of them.  ``quick_watch``
reads them all at once and compares them with the tags read when it was made; what no such dict
holds (the tracer, the profiler, the import hooks, which grader modules there are) it compares by
identity.  It answers only "unchanged": on anything else the watch runs its full comparison,
which names the change.

A tag is trusted only after the layout of a dict was checked on this very interpreter
(``READ_VERSION``); on any doubt, or where Python keeps no such tag, there is no quick check and
every comparison is the full one.
"""

from __future__ import annotations

import builtins
import gc
import importlib
import sys
import threading
import types
import warnings

import torch

from .surfaces import (
    GLOBAL_HOOK_TABLES,
    SURFACES,
    WATCHED,
    deep_owners,
    is_grader_module,
    resolve,
    warm_up,
    watched_surfaces,
)


def _version_reader():
    """A function that reads a dict's version tag by the dict's address, or None where this
    Python does not keep one that changes with every change to the dict (why a tag: see the
    module's docstring).  CPython's ``ma_version_tag`` (PEP 509) was tested here on 3.11; its
    layout is checked on this very interpreter before it is trusted: any doubt, and every
    comparison is the full one."""
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
    watched that is one object per dict, and a forked child's first check paid for the pages
    too.  So the span of memory from the lowest tag to the highest is seen as one tensor of
    64-bit words (nothing is read until an element is asked for), and ``index_select`` picks out
    every tag in one call, in C, with no Python object made per tag: what is left to pay is
    reading the memory itself.  The functions it calls are bound here, so student
    code that replaces ``torch.equal`` changes a watched dict and cannot answer for it.  It is
    checked against the one-by-one reads; on any difference, those are used."""
    import ctypes

    read, offset = READ_VERSION, _version_offset()

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


def quick_watch(deep: dict[str, object] | None = None):
    """A check that nothing watched changed which touches no watched object (see the module's
    docstring), or None where it cannot be made: the dicts that hold every watched
    object keep their version tags, and what is not in such a dict (the tracer, the profiler,
    the import hooks, the grader's modules) keeps its identity.  It answers only "unchanged";
    on anything else, the full comparison runs and names the change.  ``unchanged.retag(tags)``
    makes tags read earlier (``unchanged.read_tags()``) the ones to compare with: after a full
    comparison found nothing, a change made since the tags were read is still seen."""
    read = READ_VERSION
    if read is None:
        return None
    if deep is None:
        warm_up(step=True)
        deep = deep_owners()
    owners = [builtins, *watched_surfaces().values(), *deep.values()]
    owners += [importlib.import_module(m) for m, _ in GLOBAL_HOOK_TABLES]
    for module, path in WATCHED:  # the modules on the way (torch.utils, torch.utils.hooks); the objects
        obj = importlib.import_module(module)  # themselves are compared one by one below (a hook
        for part in path.split(".")[:-1]:  # changes RemovableHandle's dict: it counts them)
            obj = getattr(obj, part)
            if isinstance(obj, types.ModuleType):
                owners.append(obj)
    singles = {(m, p): resolve(m, p) for m, p in WATCHED}
    grader = {n: m for n, m in list(sys.modules.items()) if is_grader_module(n)}
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
        if any(resolve(m, p) is not obj for (m, p), obj in singles.items()):
            return False
        for now, then in ((sys.meta_path, meta_path), (sys.path_hooks, path_hooks)):
            if len(now) != len(then) or any(a is not b for a, b in zip(now, then)):
                return False
        if not equal(read_all(), tags[0]):
            return False
        if read(modules_address) != tags[1]:  # something was imported: the grader's modules too?
            if any(sys.modules.get(n) is not m for n, m in found.items()):
                return False
            if any(is_grader_module(n) and n not in grader for n in list(sys.modules)):
                return False
        return True

    def read_tags() -> list:
        return [read_all(), read(modules_address)]

    def retag(now: list) -> None:
        tags[:] = now

    unchanged.read_tags, unchanged.retag = read_tags, retag
    return unchanged


READ_VERSION = _version_reader()
