"""Lesson 3's judge chooses its references and its tolerance itself (issue 33, item 3): a throw-away
forward pass under autocast moves neither, every step() is replayed at the strict tolerance, and a
loop that really computes under autocast (the PyTorch AMP recipe) passes against the judge's own
autocast replay of the scenario.  The attacks are in tests/lesson3_attacks.py, with the seeds where
each passed before.

Beside autograder/judge/_lesson3/precision.py; also tries effects.py, hypotheses.py and runs.py."""

from __future__ import annotations

import pytest

from autograder.judge import judge_scenarios
from autograder.judge._lesson3.effects import end_tolerance, replay_problem
from autograder.judge._lesson3.hypotheses import RTOL
from autograder.judge._lesson3.precision import SCENARIO, candidates
from autograder.judge._lesson3.runs import _explained, _params_at_forward, effective_steps
from gradebox import exercises
from gradebox.record import decode, encode
from tests.judging import observations_of, records_of, verdict_of
from tests.lesson3_attacks import PASSED_BEFORE, THROW_AWAY, function_of, train_step_lr_off

VISIBLE, HIDDEN = 0, (11, 12)  # the notebook's visible seed and the hidden cells' written ones


def verdict(name: str, seed: int):
    exercise = "train_accumulated" if name.startswith("train_accumulated") else "train_step"
    return verdict_of(exercise, seed=seed, load=lambda: function_of(name))


def seeds_of(name: str) -> list[int]:
    """The visible seed, the hidden cells' seeds, and the first seeds where the attack passed before."""
    return sorted({VISIBLE, *HIDDEN, *PASSED_BEFORE.get(name, ())[:3]})


def judged(exercise: str, name: str, seed: int):
    """The runs as the judge explains them (the precision it found, the diagnosis), and the records."""
    scenarios = exercises.get(exercise).suite("all", seed)
    observations = observations_of(exercise, function_of(name), scenarios)
    recorded = []
    for scenario, obs in zip(scenarios, observations):
        steps = effective_steps(obs, scenario.n_batches // scenario.accum_steps)
        recorded.append((scenario, steps, _params_at_forward(scenario, obs, steps)))
    return _explained(recorded), scenarios, observations


@pytest.mark.parametrize("seed", seeds_of("train_step_lr_off"))
def test_a_learning_rate_10_percent_off_behind_a_throw_away_autocast_forward_fails(seed):
    found = verdict("train_step_lr_off", seed)
    assert (found.passed, found.code) == (False, "wrong_update"), (seed, found.message)
    assert "did not move the parameters as" in found.message and "lr=" in found.message


@pytest.mark.parametrize("seed", seeds_of("train_step_lr_slightly_off"))
def test_a_learning_rate_2_percent_off_fails_too(seed):
    found = verdict("train_step_lr_slightly_off", seed)
    assert (found.passed, found.code) == (False, "wrong_update"), (seed, found.message)


@pytest.mark.parametrize("seed", seeds_of("train_step_update_shrunk"))
def test_an_update_pulled_back_outside_step_is_named_as_a_change_outside_step(seed):
    found = verdict("train_step_update_shrunk", seed)
    assert (found.passed, found.code) == (False, "wrong_update"), (seed, found.message)
    assert "outside optimizer.step()" in found.message


@pytest.mark.parametrize("seed", seeds_of("train_step_gradient_off"))
def test_a_gradient_1_percent_off_is_a_wrong_gradient_whatever_the_record_says(seed):
    found = verdict("train_step_gradient_off", seed)
    assert (found.passed, found.code) == (False, "wrong_gradient"), (seed, found.message)


@pytest.mark.parametrize("seed", seeds_of("train_accumulated_lr_off"))
def test_an_accumulating_loop_with_its_learning_rate_off_fails(seed):
    found = verdict("train_accumulated_lr_off", seed)
    assert (found.passed, found.code) == (False, "wrong_update"), (seed, found.message)


# Seed 30: the accumulating AMP recipe was called wrong_gradient before (its bfloat16 gradients
# against a reference that divided the loss after backward rather than before, at 2e-2).
@pytest.mark.parametrize("seed", [VISIBLE, *HIDDEN, 30])
@pytest.mark.parametrize("name", ["train_step_correct", "train_step_amp_correct", "train_accumulated_amp_correct"])
def test_correct_neighbours_pass_in_float32_and_under_the_amp_recipe(name, seed):
    found = verdict(name, seed)
    assert (found.passed, found.code) == (True, "ok"), (name, seed, found.message)


def test_the_verdict_is_the_same_with_or_without_the_throw_away_autocast_forward():
    """The same wrong update, once with a forward under autocast thrown away and once without: the
    same code and message, so the autocast forward chose nothing."""
    plain = train_step_lr_off(0.9).replace(THROW_AWAY, "")
    assert "autocast" not in plain
    for seed in (2, 29):
        namespace: dict = {}
        exec(plain, namespace)
        without = verdict_of("train_step", namespace["train_step"], seed=seed)
        with_forward = verdict("train_step_lr_off", seed)
        assert (with_forward.code, with_forward.message) == (without.code, without.message)


def test_a_run_with_a_throw_away_autocast_forward_is_judged_in_the_scenarios_own_precision():
    (runs, code, _), scenarios, _ = judged("train_step", "train_step_lr_off", 2)
    assert code == "ok"  # its gradients are right: the update is what is wrong
    assert {run.precision for run in runs} == {SCENARIO}
    assert all(end_tolerance("train_step", scenario, SCENARIO) == RTOL for scenario in scenarios)


def test_an_amp_run_is_explained_by_the_judges_own_autocast_replay_and_not_by_a_looser_float32():
    (runs, code, _), scenarios, _ = judged("train_step", "train_step_amp_correct", 0)
    assert code == "ok"
    (precision,) = {run.precision for run in runs}
    assert precision.autocast and precision.forward == "bfloat16"
    assert precision in candidates(accumulates=False)
    # The end tolerance is the judge's own: RTOL plus how far its float32 and autocast runs end apart.
    for scenario in scenarios:
        assert RTOL < end_tolerance("train_step", scenario, precision) < 0.05


def test_a_record_claiming_autocast_is_refused_not_believed():
    """The record has no autocast note any more: one written in is a record of the wrong shape, which
    earns nothing and goes to review, rather than a looser comparison."""
    scenarios = exercises.get("train_step").suite("all", 2)
    forged = []
    for data in records_of("train_step", function_of("train_step_lr_off"), scenarios):
        record = decode(data)
        for forward in record["observation"]["forwards"]:
            forward["autocast"] = "bfloat16"
        forged.append(encode(record))
    found = judge_scenarios("train_step", scenarios, forged)
    assert (found.passed, found.code) == (False, "error")
    assert "unreadable record" in found.review and "autocast" in found.review


def test_every_step_is_replayed_at_the_strict_tolerance_under_autocast_too():
    """An AMP run whose record moves one step's parameters by 1e-3 of their size (far inside the old
    2e-2) is a wrong update at that step."""
    _, scenarios, observations = judged("train_step", "train_step_amp_correct", 0)
    scenario, obs = scenarios[0], observations[0]
    assert replay_problem("train_step", scenario, obs) is None
    step = obs["steps"][1]
    step["params_after"] = [p * (1 + 1e-3) for p in step["params_after"]]
    found = replay_problem("train_step", scenario, obs)
    assert found is not None and found.code == "wrong_update"
