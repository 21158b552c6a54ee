"""The notebook path: a function object, judged in children forked from this process."""

import os

import pytest
import torch

from autograder.diagnose import diagnose_function
from autograder.sandbox import Limits


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


def test_a_correct_train_step_passes_both_starts():
    for start in ("fresh", "dirty"):
        verdict, _ = diagnose_function("train_step", correct, start=start)
        assert verdict.code == "ok", verdict.message


def test_clearing_after_step_passes_a_fresh_start_and_fails_a_dirty_one():
    assert diagnose_function("train_step", clears_at_the_end, start="fresh")[0].code == "ok"
    verdict, _ = diagnose_function("train_step", clears_at_the_end, start="dirty")
    assert verdict.code == "clears_after_step"


def test_hidden_seeds_use_other_models_and_still_find_the_mistake():
    for seed in (11, 12, 13):
        assert diagnose_function("train_step", never_clears, seed=seed)[0].code == "never_clears"
        assert diagnose_function("train_step", correct, seed=seed)[0].code == "ok"


def test_what_the_student_prints_comes_back_and_does_not_cost_points():
    def chatty(model, optimizer, loss_fn, x, y):
        print("loss is being computed")
        return correct(model, optimizer, loss_fn, x, y)

    verdict, printed = diagnose_function("train_step", chatty)
    assert verdict.code == "ok"
    assert "loss is being computed" in printed


def test_a_function_that_kills_its_process_is_an_error_and_the_kernel_survives():
    def exits(model, optimizer, loss_fn, x, y):
        os._exit(3)

    verdict, _ = diagnose_function("train_step", exits)
    assert verdict.code == "error"
    assert "ended before finishing: exit code 3" in verdict.message
    assert "Never call os._exit()" in verdict.message


def test_a_hanging_function_times_out():
    def hangs(model, optimizer, loss_fn, x, y):
        while True:
            pass

    verdict, _ = diagnose_function("train_step", hangs, limits=Limits(check_seconds=2))
    assert verdict.code == "timeout"


def test_changing_torch_inside_the_function_does_not_reach_the_judge():
    original = torch.optim.SGD.step

    def sneaky(model, optimizer, loss_fn, x, y):
        torch.optim.SGD.step = lambda self, closure=None: None
        return correct(model, optimizer, loss_fn, x, y)

    verdict, _ = diagnose_function("train_step", sneaky)
    assert verdict.code == "tampered"
    assert torch.optim.SGD.step is original, "the change happened in the child only"


def test_torch_changed_before_the_check_is_noticed_too(monkeypatch):
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
