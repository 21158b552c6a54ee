"""The tamper watch: a snapshot of everything ``surfaces`` names, taken before student code runs,
and a function that lists what changed since.

Objects are compared by identity, hook tables and hooks by content.  The snapshot holds the objects
themselves, not their id(): a replaced function can be freed and its id reused by the replacement.
Each comparison first asks the quick check (``tags``), which answers only "unchanged"; on anything
else the full comparison runs and names each change.

Student code runs in the process it is watched in, and can replace any function of the watch, of
``surfaces`` or of ``tags`` in its module.  So the watch works from a sealed namespace
(``_SEALED``): a private copy of those three modules' globals in which their functions are
rebuilt, which keep using the originals whatever a module is given instead (and the replacement
itself is a change to the grader, which the watch reports).  In the sandbox's server, ``seal``
takes the one deep watch every job inherits and locks installed code (``code_lock``).
"""

from __future__ import annotations

import sys
import types

import torch

from .code_lock import refuse_code_changes
from .surfaces import CACHES, GRADER_PACKAGES, PLAIN, Hook, deep_owners, warm_up, watched_objects
from .tags import quick_watch

_MISSING = object()

# What torch's thread state may not hold once student code has run: a torch function or dispatch
# mode on its stacks, torch functions switched off, default saved-tensor hooks.  Each sees or
# rewrites every operation the grader's own recording makes afterwards (a mode pushed by an answer
# cell can answer ``clone()`` for the recorder); no lesson's code leaves one.  The recorders of
# lessons 2 and 4 push their own only around the student's call and take it off before this check.
# The functions are read here, at import, before any student code, so replacing torch's names
# later changes nothing.
_MODE_CHECKS = (
    (torch._C._len_torch_function_stack, "a torch function mode left on torch's stack"),
    (torch._C._len_torch_dispatch_stack, "a torch dispatch mode left on torch's stack"),
    (lambda _off=torch._C._is_torch_function_enabled: not _off(), "torch functions left switched off"),
    (lambda _top=torch._C._autograd._top_saved_tensors_default_hooks: _top(True) is not None,
     "saved-tensor hooks left on"),
)  # fmt: skip


def torch_state_changes() -> list[str]:
    """What student code left in torch's thread state that would see or rewrite the grader's work."""
    return [what for check, what in _MODE_CHECKS if check()]


def _deep_snapshot(owners: dict[str, object]) -> dict[str, tuple[object, dict]]:
    # Copies of the dicts, taken in C: naming every attribute here, in Python, would cost far more.
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


def _same(a, b) -> bool:
    # Hook tables and hooks are compared by content; everything else by identity.  The snapshot
    # holds the objects themselves, not their id(): a replaced function can be freed and its id
    # reused by the replacement.
    return a == b if isinstance(a, (tuple, Hook)) else a is b


def describe(names: list[str], limit: int = 3) -> str:
    shown = ", ".join(names[:limit])
    more = len(names) - limit
    return shown + (f" and {more} more" if more > 0 else "")


def start_watch(deep: bool = False):
    """A watch: the returned function lists what changed in torch and the grader since it was
    taken (a failure of the check itself counts as a change).  Call it before student code runs;
    it keeps working when student code replaces the functions of the watch (see ``_SEALED``).
    ``deep``: also every other module of torch and the classes of its training path (see
    ``surfaces.TRAINING_PATH``).  In a job of the sandbox's server it is the server's own deep
    watch (``seal``), taken before any student code ran; elsewhere (a student's own notebook) it
    watches the surfaces."""
    if _BASELINE:
        return _BASELINE[0]
    return _SEALED["_new_watch"](deep)


def _new_watch(deep: bool = False):
    # Called from the sealed namespace (``_SEALED``): the names below are its private copies.
    watched, same, deep_changes = watched_objects, _same, _deep_changes
    if deep:
        warm_up(step=True)
    owners = deep_owners() if deep else {}
    before, deep = watched(), _deep_snapshot(owners)
    try:
        quick = quick_watch(owners)
    except Exception:  # noqa: BLE001 - then every comparison is the full one
        quick = None

    def changes() -> list[str]:
        try:
            if quick is not None and quick():
                return torch_state_changes()  # not in the tags: asked every time
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
        changed += [name for name in now if name not in before and name.startswith(GRADER_PACKAGES)]
        changed += torch_state_changes()
        if not changed and tags is not None:
            # Nothing that matters changed (torch imported a submodule, counted a hook): compare
            # with the tags of now from here on, so that the next check is a quick one again.
            quick.retag(tags)
        return sorted(changed)

    return changes


_BASELINE: list = []  # the server's watch (``seal``), inherited by every job it forks


def seal() -> None:
    """In the sandbox's server, once it has imported everything and before it forks any job:
    take the watch every job compares with, and refuse changes to installed functions' code."""
    if not _BASELINE:
        _BASELINE.append(_SEALED["_new_watch"](deep=True))
        refuse_code_changes()


def _sealed_namespace(*modules: types.ModuleType) -> dict:
    """One private copy of the modules' globals in which their functions are rebuilt.

    Student code can replace ``gradebox.tamper.surfaces.watched_objects`` (or any other function
    of these modules) in its module; functions rebuilt over a private dict keep using the
    originals, and call each other's originals across the modules.  A name must mean one thing
    in all of them: one dict holds them all."""
    private, homes = dict(vars(modules[-1])), {module.__name__ for module in modules}
    for module in modules:
        for name, obj in vars(module).items():
            if name.startswith("__"):
                continue
            if private.get(name, obj) is not obj:
                raise ImportError(f"{name} means two things in {', '.join(sorted(homes))}")
            private[name] = obj
    rebuilt: dict[int, types.FunctionType] = {}
    for name, obj in list(private.items()):
        if isinstance(obj, types.FunctionType) and obj.__module__ in homes:
            if id(obj) not in rebuilt:
                copy = types.FunctionType(obj.__code__, private, obj.__name__, obj.__defaults__, obj.__closure__)
                copy.__kwdefaults__ = obj.__kwdefaults__
                rebuilt[id(obj)] = copy
            private[name] = rebuilt[id(obj)]
    return private


_SEALED = _sealed_namespace(
    sys.modules[f"{__package__}.surfaces"], sys.modules[f"{__package__}.tags"], sys.modules[__name__]
)
