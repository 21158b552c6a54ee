"""Provenance (gradebox.tamper.provenance): every watched object defined by installed code, with
no earlier snapshot to compare with."""

import torch

from gradebox.tamper.provenance import provenance_problems


def test_fresh_process_is_clean():
    assert provenance_problems() == []


def test_replaced_optimizer_flagged(monkeypatch):
    monkeypatch.setattr(torch.optim.Optimizer, "zero_grad", lambda self, set_to_none=True: None)
    assert "torch.optim.Optimizer.zero_grad" in provenance_problems()


def test_replaced_grader_flagged(monkeypatch):
    import gradebox.exercises._lesson3.recorder

    monkeypatch.setattr(gradebox.exercises._lesson3.recorder, "grads", lambda params: [])
    assert "gradebox.exercises._lesson3.recorder.grads" in provenance_problems()
