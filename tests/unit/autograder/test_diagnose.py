"""The notebook path: a function object, judged in children forked from this process.

Beside autograder/diagnose.py (diagnose_function)."""

import os

import pytest
import torch

from autograder.diagnose import diagnose_function
from gradebox.limits import Limits


def correct(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


def clears_at_the_end(model, optimizer, loss_fn, x, y):
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()


def never_clears(model, optimizer, loss_fn, x, y):
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


def test_correct_passes_both_starts():
    for start in ("fresh", "dirty"):
        verdict, _ = diagnose_function("train_step", correct, start=start)
        assert verdict.code == "ok", verdict.message


def test_late_clear_fails_dirty():
    assert diagnose_function("train_step", clears_at_the_end, start="fresh")[0].code == "ok"
    verdict, _ = diagnose_function("train_step", clears_at_the_end, start="dirty")
    assert verdict.code == "clears_after_step"


def test_hidden_seeds_find_mistake():
    for seed in (11, 12, 13):
        assert diagnose_function("train_step", never_clears, seed=seed)[0].code == "never_clears"
        assert diagnose_function("train_step", correct, seed=seed)[0].code == "ok"


def test_prints_come_back_free():
    def chatty(model, optimizer, loss_fn, x, y):
        print("loss is being computed")
        return correct(model, optimizer, loss_fn, x, y)

    verdict, printed = diagnose_function("train_step", chatty)
    assert verdict.code == "ok"
    assert "loss is being computed" in printed


def test_exit_errors_kernel_survives():
    def exits(model, optimizer, loss_fn, x, y):
        os._exit(3)

    verdict, _ = diagnose_function("train_step", exits)
    assert verdict.code == "error"
    assert "ended before finishing: exit code 3" in verdict.message
    assert "Never call os._exit()" in verdict.message


def test_hanging_function_times_out():
    def hangs(model, optimizer, loss_fn, x, y):
        while True:
            pass

    verdict, _ = diagnose_function("train_step", hangs, limits=Limits(check_seconds=2))
    assert verdict.code == "timeout"


def test_torch_change_misses_judge():
    original = torch.optim.SGD.step

    def sneaky(model, optimizer, loss_fn, x, y):
        torch.optim.SGD.step = lambda self, closure=None: None
        return correct(model, optimizer, loss_fn, x, y)

    verdict, _ = diagnose_function("train_step", sneaky)
    assert verdict.code == "tampered"
    assert torch.optim.SGD.step is original, "the change happened in the child only"


def test_earlier_torch_change_noticed(monkeypatch):
    monkeypatch.setattr(torch.Tensor, "backward", lambda self, *a, **k: None)
    verdict, _ = diagnose_function("train_step", correct)
    assert verdict.code == "tampered"
    assert "Tensor.backward" in verdict.message


@pytest.mark.parametrize(
    "body, code",
    [
        (
            "with torch.no_grad():\n        for p in params:\n            if p.grad is not None:\n"
            "                p -= lr * p.grad\n                p.grad = None",
            "ok",
        ),
        (
            "with torch.no_grad():\n        for p in params:\n            if p.grad is not None:\n"
            "                p -= lr * p.grad",
            "no_clear",
        ),
        ("for p in params:\n        if p.grad is not None:\n            p -= lr * p.grad", "update_tracked"),
        (
            "with torch.no_grad():\n        for p in params:\n            if p.grad is not None:\n"
            "                p += lr * p.grad\n                p.grad = None",
            "wrong_update",
        ),
    ],
)
def test_manual_sgd_step_variants(body, code):
    namespace = {"torch": torch}
    exec(f"def manual_sgd_step(params, lr):\n    {body}\n", namespace)
    verdict, _ = diagnose_function("manual_sgd_step", namespace["manual_sgd_step"])
    assert verdict.code == code, verdict.message
