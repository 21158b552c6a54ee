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
