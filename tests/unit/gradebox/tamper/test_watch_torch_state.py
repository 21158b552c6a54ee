"""The tamper watch names what student code leaves in torch's thread state: a mode that would see or
rewrite every operation the grader's recording makes after the student's function returned."""

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from gradebox.tamper.watch import start_watch


class Lying(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class Passing(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def test_a_clean_thread_shows_no_change():
    assert start_watch()() == []


def test_a_function_mode_left_on_is_a_change():
    changes = start_watch()
    mode = Lying()
    mode.__enter__()
    try:
        assert "a torch function mode left on torch's stack" in changes()
    finally:
        mode.__exit__(None, None, None)
    assert changes() == []


def test_a_dispatch_mode_left_on_is_a_change():
    changes = start_watch()
    with Passing():
        assert "a torch dispatch mode left on torch's stack" in changes()


def test_torch_functions_left_off_are_a_change():
    changes = start_watch()
    with torch._C.DisableTorchFunction():
        assert "torch functions left switched off" in changes()


def test_saved_tensor_hooks_left_on_are_a_change():
    changes = start_watch()
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        assert "saved-tensor hooks left on" in changes()


def test_replacing_torchs_names_does_not_blind_the_check(monkeypatch):
    changes = start_watch()
    monkeypatch.setattr(torch._C, "_len_torch_function_stack", lambda: 0)
    with Lying():
        assert "a torch function mode left on torch's stack" in changes()
