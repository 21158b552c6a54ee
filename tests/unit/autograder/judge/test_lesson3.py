"""Lesson 3's judges on the forms real code takes: optimizer.step(closure), gradient clipping,
a swapped loss call, size-weighted accumulation and a manual step that trips over a None gradient.

Student functions here are the test's own, so they run in this process (``tests.judging``) and the
verdict comes from the same judge the sandboxed paths use.

Beside autograder/judge/_lesson3/, the judge of lesson 3's exercises."""

import pytest
import torch

from gradebox import exercises
from gradebox.exercises._lesson3.scenarios import OPTIMIZERS, build
from tests.judging import verdict_of


def plain(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


def with_closure(model, optimizer, loss_fn, x, y):
    def closure():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        return loss

    return optimizer.step(closure).item()


def clipped_at(max_norm):
    def train_step(model, optimizer, loss_fn, x, y):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        optimizer.step()
        return loss.item()

    return train_step


# ---- optimizer.step(closure) ---------------------------------------------------------------


def test_closure_passes_both_starts():
    seen = set()
    for seed in range(3):
        for scenario in exercises.get("train_step").suite("all", seed):
            seen.add(scenario.optimizer)
        assert verdict_of("train_step", with_closure, seed=seed).code == "ok"
    assert seen == set(OPTIMIZERS)


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_closure_ends_bit_identical(optimizer):
    """The reference is torch itself: the same scenario, from stale gradients, trained both ways."""
    scenario = next(s for seed in range(3) for s in exercises.get("train_step").suite("dirty", seed)
                    if s.optimizer == optimizer)  # fmt: skip
    finals = []
    for fn in (plain, with_closure):
        setup = build(scenario)
        for x, y in setup.batches:
            fn(setup.model, setup.optimizer, setup.loss_fn, x, y)
        finals.append([p.detach().clone() for p in setup.model.parameters()])
    assert all(torch.equal(a, b) for a, b in zip(*finals))


def test_lazy_closure_named_like_loop():
    def lazy_closure(model, optimizer, loss_fn, x, y):
        def closure():
            loss = loss_fn(model(x), y)
            loss.backward()
            return loss

        loss = optimizer.step(closure)
        optimizer.zero_grad()
        return loss.item()

    assert verdict_of("train_step", lazy_closure).code == "clears_after_step"


# ---- clipping ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2, 11])
@pytest.mark.parametrize("max_norm", [1e-3, 0.5, 1e6])
def test_clipping_named_at_any_norm(seed, max_norm):
    verdict = verdict_of("train_step", clipped_at(max_norm), seed=seed)
    assert verdict.code == "clips_gradients", verdict.message
    assert "clip" in verdict.message and "backward() on it" not in verdict.message


def test_clip_and_clear_both_named():
    def nanogpt_style(model, optimizer, loss_fn, x, y):
        loss = loss_fn(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.05)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.item()

    assert verdict_of("train_step", nanogpt_style, start="fresh").code == "clips_gradients"
    verdict = verdict_of("train_step", nanogpt_style, start="dirty")
    assert verdict.code == "clears_after_step"
    assert "Also: your code clips the gradients" in verdict.message


def test_dividing_is_not_clipping():
    def scale_after(model, optimizer, loss_fn, micro_batches, accum_steps):
        losses = []
        for start in range(0, len(micro_batches), accum_steps):
            optimizer.zero_grad()
            for x, y in micro_batches[start : start + accum_steps]:
                loss = loss_fn(model(x), y)
                loss.backward()
                losses.append(loss.item())
            for p in model.parameters():
                p.grad /= accum_steps
            optimizer.step()
        return losses

    assert verdict_of("train_accumulated", scale_after).code == "ok"


# ---- the loss called as loss_fn(target, prediction) -----------------------------------------


def swapped(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(y, model(x))
    loss.backward()
    optimizer.step()
    return loss.item()


def test_swapped_loss_named():
    verdict = verdict_of("train_step", swapped)
    assert verdict.code == "swapped_loss_args"
    assert "loss_fn(model(x), y)" in verdict.message


def test_symmetric_swap_passes():
    symmetric = verdict_of("train_step", swapped, keep=lambda s: s.model != "classifier")
    assert symmetric.code == "ok", symmetric.message


def test_asymmetric_loss_everywhere():
    for exercise in ("train_step", "train_accumulated"):
        for seed in (0, 1, 2, 11, 12, 21, 22):
            assert any(s.model == "classifier" for s in exercises.get(exercise).suite("fresh", seed))


# ---- accumulation weighted by the micro-batch sizes -----------------------------------------


def test_size_weighting_gets_own_code():
    def weighted(model, optimizer, loss_fn, micro_batches, accum_steps):
        losses = []
        for start in range(0, len(micro_batches), accum_steps):
            group = micro_batches[start : start + accum_steps]
            total = sum(len(x) for x, _ in group)
            optimizer.zero_grad()
            for x, y in group:
                loss = loss_fn(model(x), y)
                (loss * len(x) / total).backward()
                losses.append(loss.item())
            optimizer.step()
        return losses

    verdict = verdict_of("train_accumulated", weighted)
    assert verdict.code == "weighted_by_examples"
    assert "accum_steps" in verdict.message


# ---- manual_sgd_step over a tensor whose .grad is None --------------------------------------


def test_d2l_none_grad_crash_named():
    def d2l_sgd(params, lr):
        with torch.no_grad():
            for param in params:
                param -= lr * param.grad
                param.grad.zero_()

    verdict = verdict_of("manual_sgd_step", d2l_sgd)
    assert verdict.code == "none_grad_crash"
    assert "None" in verdict.message and "TypeError" in verdict.message
