"""The tamper watch (gradebox.tamper.watch): a snapshot of torch and the grader taken before student
code runs, and what changed since; also sealed against student code that edits the watch itself."""

import sys

import pytest
import torch
from torch.optim.optimizer import register_optimizer_step_pre_hook

from gradebox.tamper import surfaces, watch
from gradebox.tamper.provenance import provenance_problems
from gradebox.tamper.watch import start_watch


def test_sees_replaced_optimizer(monkeypatch):
    changes = watch.start_watch()
    assert changes() == []
    monkeypatch.setattr(torch.optim.Optimizer, "zero_grad", lambda self, set_to_none=True: None)
    assert "torch.optim.Optimizer.zero_grad" in changes()


def test_sees_global_optimizer_hook():
    changes = watch.start_watch()
    handle = register_optimizer_step_pre_hook(lambda *a: None)
    try:
        assert "torch.optim.optimizer._global_optimizer_pre_hooks" in changes()
    finally:
        handle.remove()
    assert changes() == []


def test_sees_replaced_grader(monkeypatch):
    import gradebox.exercises._lesson3.recorder

    changes = watch.start_watch()
    monkeypatch.setattr(gradebox.exercises._lesson3.recorder, "grads", lambda params: [])
    assert "gradebox.exercises._lesson3.recorder.grads" in changes()


def test_new_optimizers_not_tampering():
    changes = watch.start_watch()
    model = torch.nn.Linear(2, 1)
    for make in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop):
        make(model.parameters(), lr=0.1)
    assert changes() == []


def test_watch_cannot_be_blinded(monkeypatch):
    changes = watch.start_watch()
    # Where the watch's functions are defined, and where the watch looks them up.
    monkeypatch.setattr(surfaces, "watched_objects", lambda: {})
    monkeypatch.setattr(watch, "watched_objects", lambda: {})
    monkeypatch.setattr(watch, "_same", lambda a, b: True)
    assert "gradebox.tamper.surfaces.watched_objects" in changes()
    assert "gradebox.tamper.watch.watched_objects" in changes()


DEEP = {
    "torch.autograd.graph.Variable": lambda mp: mp.setattr(torch.autograd.graph, "Variable", type("V", (), {})),
    "torch._C._nn.mse_loss": lambda mp: mp.setattr(torch._C._nn, "mse_loss", lambda *a, **k: None),
    "torch.optim.sgd._single_tensor_sgd": lambda mp: mp.setattr(
        sys.modules["torch.optim.sgd"], "_single_tensor_sgd", print
    ),
    "torch.autograd.variable.Variable._execution_engine": lambda mp: mp.setattr(
        torch.autograd.variable.Variable, "_execution_engine", object()
    ),
}


@pytest.mark.parametrize("name", DEEP, ids=list(DEEP))
def test_deeper_change_is_named(name, monkeypatch):
    changes = watch.start_watch(deep=True)
    DEEP[name](monkeypatch)
    assert name in changes()


def _quick_of(changes):
    """The quick check a watch holds (white box: the retagging below is invisible otherwise)."""
    return dict(zip(changes.__code__.co_freevars, (c.cell_contents for c in changes.__closure__)))["quick"]


def test_flags_submodules_not_changes(monkeypatch):
    import types

    changes = watch.start_watch(deep=True)
    profiler = torch.autograd.profiler
    monkeypatch.setattr(profiler, "_cupti_monitor_checked", not profiler._cupti_monitor_checked)  # a flag
    monkeypatch.setattr(torch.autograd.graph, "lazily_imported", types.ModuleType("x"), raising=False)
    quick = _quick_of(changes)
    assert quick() is False  # dicts changed: the full comparison decides
    assert changes() == []
    assert quick() is True  # and takes the tags of now as the ones to compare with


def test_change_after_clean_seen(monkeypatch):
    changes = watch.start_watch(deep=True)
    monkeypatch.setattr(torch.autograd.graph, "lazily_imported", 1, raising=False)
    assert changes() == []
    monkeypatch.setattr(torch.autograd.graph, "Variable", type("V", (), {}))
    assert changes() == ["torch.autograd.graph.Variable"]


def test_sealed_watch_is_every_jobs():
    from gradebox.box.child import run_in_child

    def work() -> bytes:  # in a child: sealing is for good
        watch.seal()
        taken = watch.start_watch()
        same = taken is watch.start_watch()
        torch.autograd.graph.Variable = type("V", (), {})
        return repr([same, taken()]).encode()

    outcome = run_in_child(work)
    assert outcome.record is not None, outcome.detail
    assert eval(outcome.record) == [True, ["torch.autograd.graph.Variable"]]  # noqa: S307


# ---- the whole surface, not a short list of names -----------------------------------------------


@pytest.mark.parametrize(
    "owner, name, replacement",
    [
        (torch.Tensor, "__sub__", lambda self, other: self),
        (torch.nn.functional, "mse_loss", lambda *a, **k: torch.zeros(())),
        (torch.nn.utils, "clip_grad_norm_", lambda *a, **k: 0.0),
        (torch.optim.SGD, "step", lambda self, closure=None: None),
        (torch.nn.Linear, "forward", lambda self, x: x),
        (torch, "allclose", lambda *a, **k: True),
    ],
    ids=["Tensor.__sub__", "functional.mse_loss", "clip_grad_norm_", "SGD.step", "Linear.forward", "allclose"],
)
def test_replaced_attribute_seen(monkeypatch, owner, name, replacement):
    changes = start_watch()
    monkeypatch.setattr(owner, name, replacement)
    assert changes(), name
    assert provenance_problems(), name


def test_builtin_tracer_and_hook_seen(monkeypatch):
    import builtins

    changes = start_watch()
    monkeypatch.setattr(builtins, "float", lambda x=0: 0.0)
    assert "builtins.float" in changes()
    monkeypatch.undo()

    class Finder:
        def find_spec(self, *args):
            return None

    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    assert "sys.meta_path" in changes() and "sys.meta_path" in provenance_problems()
    monkeypatch.undo()
    previous = sys.gettrace()
    sys.settrace(lambda *a: None)
    try:
        assert "sys.settrace" in changes() and "sys.settrace" in provenance_problems()
    finally:
        sys.settrace(previous)
    assert changes() == []


def test_training_is_not_tampering():
    changes = start_watch()
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    for make in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop, torch.optim.Adagrad):
        optimizer = make(model.parameters(), lr=0.01)
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(torch.randn(5, 3)), torch.randn(5, 1)).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
    assert changes() == []
