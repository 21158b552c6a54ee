"""The tamper watch (autograder.tamper.watch): a snapshot of torch and the grader taken before student
code runs, and what changed since; also sealed against student code that edits the watch itself."""

import sys

import pytest
import torch
from torch.optim.optimizer import register_optimizer_step_pre_hook

from autograder.tamper import surfaces, watch


def test_a_snapshot_sees_a_replaced_optimizer_method(monkeypatch):
    changes = watch.start_watch()
    assert changes() == []
    monkeypatch.setattr(torch.optim.Optimizer, "zero_grad", lambda self, set_to_none=True: None)
    assert "torch.optim.Optimizer.zero_grad" in changes()


def test_a_snapshot_sees_a_global_optimizer_hook():
    changes = watch.start_watch()
    handle = register_optimizer_step_pre_hook(lambda *a: None)
    try:
        assert "torch.optim.optimizer._global_optimizer_pre_hooks" in changes()
    finally:
        handle.remove()
    assert changes() == []


def test_a_snapshot_sees_a_replaced_grader_function(monkeypatch):
    import autograder.exercises._lesson3.recorder

    changes = watch.start_watch()
    monkeypatch.setattr(autograder.exercises._lesson3.recorder, "grads", lambda params: [])
    assert "autograder.exercises._lesson3.recorder.grads" in changes()


def test_creating_optimizers_and_models_is_not_tampering():
    changes = watch.start_watch()
    model = torch.nn.Linear(2, 1)
    for make in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop):
        make(model.parameters(), lr=0.1)
    assert changes() == []


def test_replacing_the_tamper_checks_own_functions_does_not_blind_it(monkeypatch):
    changes = watch.start_watch()
    # Where the watch's functions are defined, and where the watch looks them up.
    monkeypatch.setattr(surfaces, "watched_objects", lambda: {})
    monkeypatch.setattr(watch, "watched_objects", lambda: {})
    monkeypatch.setattr(watch, "_same", lambda a, b: True)
    assert "autograder.tamper.surfaces.watched_objects" in changes()
    assert "autograder.tamper.watch.watched_objects" in changes()


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
def test_a_change_one_module_deeper_than_the_surfaces_is_named(name, monkeypatch):
    changes = watch.start_watch(deep=True)
    DEEP[name](monkeypatch)
    assert name in changes()


def _quick_of(changes):
    """The quick check a watch holds (white box: the retagging below is invisible otherwise)."""
    return dict(zip(changes.__code__.co_freevars, (c.cell_contents for c in changes.__closure__)))["quick"]


def test_flags_and_new_submodules_are_not_changes_and_the_next_check_is_quick_again(monkeypatch):
    import types

    changes = watch.start_watch(deep=True)
    profiler = torch.autograd.profiler
    monkeypatch.setattr(profiler, "_cupti_monitor_checked", not profiler._cupti_monitor_checked)  # a flag
    monkeypatch.setattr(torch.autograd.graph, "lazily_imported", types.ModuleType("x"), raising=False)
    quick = _quick_of(changes)
    assert quick() is False  # dicts changed: the full comparison decides
    assert changes() == []
    assert quick() is True  # and takes the tags of now as the ones to compare with


def test_a_change_made_after_a_clean_full_comparison_is_still_seen(monkeypatch):
    changes = watch.start_watch(deep=True)
    monkeypatch.setattr(torch.autograd.graph, "lazily_imported", 1, raising=False)
    assert changes() == []
    monkeypatch.setattr(torch.autograd.graph, "Variable", type("V", (), {}))
    assert changes() == ["torch.autograd.graph.Variable"]


def test_seal_makes_the_servers_watch_every_jobs_watch():
    from autograder.sandbox.child import run_in_child

    def work() -> bytes:  # in a child: sealing is for good
        watch.seal()
        taken = watch.start_watch()
        same = taken is watch.start_watch()
        torch.autograd.graph.Variable = type("V", (), {})
        return repr([same, taken()]).encode()

    outcome = run_in_child(work)
    assert outcome.record is not None, outcome.detail
    assert eval(outcome.record) == [True, ["torch.autograd.graph.Variable"]]  # noqa: S307
