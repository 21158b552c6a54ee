"""The quick check (gradebox.tamper.tags): dict version tags instead of touching every watched
object, never calling a change unchanged, and quick for honest work in a forked child."""

import sys
import warnings

import pytest
import torch

from gradebox.tamper import tags, watch


def _quick():
    quick = watch._SEALED["quick_watch"]()
    assert quick is not None, "the quick check must be available on this interpreter"
    return quick


def test_interpreter_has_version_tags():
    assert tags.READ_VERSION is not None
    assert _quick()() is True


def test_hooked_training_stays_quick():
    from gradebox.box.child import run_in_child

    quick = _quick()

    def work() -> bytes:
        torch.set_num_threads(1)
        model = torch.nn.Linear(3, 1)
        handle = model.register_forward_hook(lambda *a: None)
        optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
        model(torch.ones(2, 3)).sum().backward()
        optimizer.step()
        handle.remove()
        return b"quick" if quick() else b"full"

    assert run_in_child(work).record == b"quick"


def test_watched_warning_stays_quick(monkeypatch):
    import gradebox.jobs.run as watched  # a grader module: its dict is watched

    monkeypatch.delitem(vars(watched), "__warningregistry__", raising=False)
    quick = _quick()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec("__import__('warnings').warn('from the grader', UserWarning)", vars(watched))
    assert "__warningregistry__" in vars(watched) and quick() is True


def _plant_module(monkeypatch):
    """A module in sys.modules under a watched class's name: the full check, which finds its
    surfaces by name, once lost sight of torch.Tensor this way (and of any patch to it)."""
    import sys
    import types

    monkeypatch.setitem(sys.modules, "torch.Tensor", types.ModuleType("torch.Tensor"))
    monkeypatch.setattr(torch.Tensor, "__sub__", lambda a, b: a)


CHANGES = {
    "a tensor operator": lambda mp: mp.setattr(torch.Tensor, "__sub__", lambda a, b: a),
    "an attribute shadowing an inherited one": lambda mp: mp.setattr(torch.Tensor, "__mul__", lambda a, b: a),
    "a builtin": lambda mp: mp.setattr("builtins.float", lambda x=0: 0.0),
    "torch.save": lambda mp: mp.setattr(torch, "save", lambda *a, **k: None),
    "a hook handle's remove": lambda mp: mp.setattr(torch.utils.hooks.RemovableHandle, "remove", lambda self: None),
    "a global forward hook": lambda mp: mp.setitem(
        torch.nn.modules.module._global_forward_hooks, 10**9, lambda *a: None
    ),
    "a hook table replaced": lambda mp: mp.setattr(
        torch.nn.modules.module, "_global_forward_hooks", {1: lambda *a: None}
    ),
    "a grader function": lambda mp: mp.setattr(watch, "describe", lambda names, limit=3: ""),
    "a tracer": lambda mp: __import__("sys").settrace(lambda *a: None),
    "an import hook": lambda mp: mp.setattr("sys.meta_path", [object(), *__import__("sys").meta_path]),
    "a module planted under a watched name": _plant_module,
    "an optimizer's step": lambda mp: mp.setattr(torch.optim.SGD, "step", lambda self, closure=None: None),
    # One module deeper than the surfaces: each of these reshapes training as well.
    "what runs every backward": lambda mp: mp.setattr(torch.autograd.graph, "Variable", type("V", (), {})),
    "a loss in torch._C": lambda mp: mp.setattr(torch._C._nn, "mse_loss", lambda *a, **k: None),
    "SGD's inner step": lambda mp: mp.setattr(sys.modules["torch.optim.sgd"], "_single_tensor_sgd", print),
    "the autograd engine": lambda mp: mp.setattr(torch.autograd.variable.Variable, "_execution_engine", object()),
    "a class on the training path gaining a method": lambda mp: mp.setattr(
        torch.autograd.graph.Node, "clear_leaves", lambda self: None, raising=False
    ),
}


@pytest.mark.parametrize("change", CHANGES, ids=list(CHANGES))
def test_quick_check_misses_no_change(change, monkeypatch):
    import sys

    changes, quick = watch.start_watch(deep=True), _quick()
    try:
        CHANGES[change](monkeypatch)
        assert quick() is False
        assert changes() != []
    finally:
        sys.settrace(None)


def test_correct_solutions_stay_quick():
    """The instructor's answer to each of the twelve exercises, run through all its scenarios in a
    forked child as the grader does: torch's own lazy work must not look like a change, or every
    check would take the slow way (or worse, call honest work tampered)."""
    import glob

    from gradebox import exercises
    from gradebox.box.child import run_in_child
    from tests.course_copy import read, solutions
    from tests.judging import verdict_of

    answers = {}
    for path in sorted(glob.glob("notebooks/*/*.ipynb")):
        answers.update(solutions(read(path)))
    names = [name for name in answers if name in exercises.EXERCISES]
    assert len(names) == 12
    quick = _quick()

    def work(name) -> bytes:
        torch.set_num_threads(1)
        namespace = {}
        exec("import math\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F", namespace)
        exec(answers[name], namespace)
        verdict = verdict_of(name, namespace[name])
        return b"passed " + (b"quick" if quick() else b"full") if verdict.passed else repr(verdict)[:300].encode()

    for name in names:
        assert run_in_child(lambda name=name: work(name)).record == b"passed quick", name
