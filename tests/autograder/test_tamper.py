import torch
from torch.optim.optimizer import register_optimizer_step_pre_hook

from autograder import tamper


def test_a_fresh_process_has_no_provenance_problems():
    assert tamper.provenance_problems() == []


def test_a_snapshot_sees_a_replaced_optimizer_method(monkeypatch):
    changes = tamper.start_watch()
    assert changes() == []
    monkeypatch.setattr(torch.optim.Optimizer, "zero_grad", lambda self, set_to_none=True: None)
    assert "torch.optim.Optimizer.zero_grad" in changes()
    assert "torch.optim.Optimizer.zero_grad" in tamper.provenance_problems()


def test_a_snapshot_sees_a_global_optimizer_hook():
    changes = tamper.start_watch()
    handle = register_optimizer_step_pre_hook(lambda *a: None)
    try:
        assert "torch.optim.optimizer._global_optimizer_pre_hooks" in changes()
    finally:
        handle.remove()
    assert changes() == []


def test_a_snapshot_sees_a_replaced_grader_function(monkeypatch):
    import autograder.exercises._lesson3.hypotheses

    changes = tamper.start_watch()
    monkeypatch.setattr(autograder.exercises._lesson3.hypotheses, "close", lambda a, b: True)
    assert "autograder.exercises._lesson3.hypotheses.close" in changes()
    assert "autograder.exercises._lesson3.hypotheses.close" in tamper.provenance_problems()


def test_creating_optimizers_and_models_is_not_tampering():
    changes = tamper.start_watch()
    model = torch.nn.Linear(2, 1)
    for make in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop):
        make(model.parameters(), lr=0.1)
    assert changes() == []


def test_replacing_the_tamper_checks_own_functions_does_not_blind_it(monkeypatch):
    changes = tamper.start_watch()
    monkeypatch.setattr(tamper, "_watched_objects", lambda: {})
    monkeypatch.setattr(tamper, "_same", lambda a, b: True)
    assert "autograder.tamper._watched_objects" in changes()


# -- the quick check: dict version tags instead of touching every watched object -----------------


def _quick():
    quick = tamper._SEALED["_quick_watch"]()
    assert quick is not None, "the quick check must be available on this interpreter"
    return quick


def test_this_interpreter_keeps_dict_version_tags_so_the_quick_check_is_used():
    assert tamper._READ_VERSION is not None
    assert _quick()() is True


def test_training_with_hooks_in_a_forked_child_takes_the_quick_path():
    from autograder.sandbox.child import run_in_child

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
    "a grader function": lambda mp: mp.setattr(tamper, "describe", lambda names, limit=3: ""),
    "a tracer": lambda mp: __import__("sys").settrace(lambda *a: None),
    "an import hook": lambda mp: mp.setattr("sys.meta_path", [object(), *__import__("sys").meta_path]),
    "a module planted under a watched name": _plant_module,
    "an optimizer's step": lambda mp: mp.setattr(torch.optim.SGD, "step", lambda self, closure=None: None),
}


import pytest  # noqa: E402


@pytest.mark.parametrize("change", CHANGES, ids=list(CHANGES))
def test_the_quick_check_never_calls_a_change_unchanged(change, monkeypatch):
    import sys

    changes, quick = tamper.start_watch(), _quick()
    try:
        CHANGES[change](monkeypatch)
        assert quick() is False
        assert changes() != []
    finally:
        sys.settrace(None)
