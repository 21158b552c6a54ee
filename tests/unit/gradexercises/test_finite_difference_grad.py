"""The finite_difference_grad exercise: the judge's hypotheses are told apart in every scenario."""

import pytest
import torch

from autograder.diagnose import diagnose_function
from autograder.judge._lesson2 import same
from gradebox.exercises._lesson2 import FIELD_FUNCTIONS
from gradexercises.finite_difference_grad import job as ex
from gradexercises.finite_difference_grad import judge as judge
from tests.judging import observations_of

SEEDS = [0, 1, 11, 12, 13]


def correct(f, x, eps=1e-4):
    grad = torch.zeros_like(x)
    for i in range(x.numel()):
        up, down = x.clone(), x.clone()
        up.view(-1)[i] += eps
        down.view(-1)[i] -= eps
        grad.view(-1)[i] = (f(up) - f(down)) / (2 * eps)
    return grad


@pytest.mark.parametrize("seed", SEEDS)
def test_reference_near_autograd(seed):
    for scenario in ex.suite("all", seed):
        x = ex.make_x(scenario)
        eps = scenario.eps or ex.DEFAULT_EPS
        estimate = judge.central(FIELD_FUNCTIONS[scenario.function], x, eps)
        exact = judge.autograd_grad(FIELD_FUNCTIONS[scenario.function], x)
        assert estimate.shape == x.shape
        # O(eps²) error: tiny for small eps, visible for eps = 0.5 on the cubic
        assert torch.allclose(estimate, exact, atol=0.5 * eps**2 * 4 + 1e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_estimate_kinds_told_apart(seed):
    for scenario in ex.suite("all", seed):
        function, x = FIELD_FUNCTIONS[scenario.function], ex.make_x(scenario)
        eps = scenario.eps or ex.DEFAULT_EPS
        rtol, atol = judge._tolerances(scenario)
        right = judge.central(function, x, eps)
        for wrong in (judge.central(function, x, eps, scale=1.0), judge.one_sided(function, x, eps, 1)):
            assert not same(wrong, right, rtol, atol), scenario


def test_suite_covers_edge_cases():
    scenarios = ex.suite()
    assert {len(s.shape) for s in scenarios} == {0, 1, 2, 3}
    assert {s.dtype for s in scenarios} == {"float32", "float64"}
    assert 0.5 in [s.eps for s in scenarios] and None in [s.eps for s in scenarios]


def test_record_survives_round_trip():
    scenario = ex.suite()[1]
    assert judge.judge([scenario], observations_of("finite_difference_grad", correct, [scenario])).code == "ok"


def flat(f, x, eps=1e-4):
    return correct(f, x, eps).reshape(-1)


def autograd_inside(f, x, eps=1e-4):
    t = x.clone().requires_grad_()
    return torch.autograd.grad(f(t), t)[0]


@pytest.mark.parametrize("fn, code", [(correct, "ok"), (flat, "wrong_shape"), (autograd_inside, "used_autograd")])
def test_forked_path_names_mistake(fn, code):
    verdict, _ = diagnose_function("finite_difference_grad", fn)
    assert verdict.code == code, verdict.message


def inplace_undone_by_arithmetic(f, x, eps=1e-4):
    grad = torch.zeros_like(x)
    flat_x = x.view(-1)
    with torch.no_grad():
        for i in range(flat_x.numel()):
            flat_x[i] += eps
            up = f(x)
            flat_x[i] -= 2 * eps
            down = f(x)
            flat_x[i] += eps
            grad.view(-1)[i] = (up - down) / (2 * eps)
    return grad


def inplace_restoring_saved_value(f, x, eps=1e-4):
    grad = torch.zeros_like(x)
    flat_x = x.view(-1)
    with torch.no_grad():
        for i in range(flat_x.numel()):
            old = flat_x[i].item()
            flat_x[i] = old + eps
            up = f(x)
            flat_x[i] = old - eps
            down = f(x)
            flat_x[i] = old
            grad.view(-1)[i] = (up - down) / (2 * eps)
    return grad


@pytest.mark.parametrize("seed", SEEDS)
def test_undoing_a_nudge_by_arithmetic_is_modifies_x(seed):
    scenarios = ex.suite("all", seed)
    verdict = judge.judge(scenarios, observations_of("finite_difference_grad", inplace_undone_by_arithmetic, scenarios))
    assert verdict.code == "modifies_x", verdict.message


@pytest.mark.parametrize("seed", SEEDS)
def test_writing_back_the_saved_value_is_ok(seed):
    scenarios = ex.suite("all", seed)
    verdict = judge.judge(
        scenarios, observations_of("finite_difference_grad", inplace_restoring_saved_value, scenarios)
    )
    assert verdict.code == "ok", verdict.message


def test_one_rounding_step_counts_as_a_change():
    x = torch.tensor([0.3, -1.7], dtype=torch.float64)
    nudged = x.clone()
    nudged[0] = torch.nextafter(nudged[0], torch.tensor(1.0, dtype=torch.float64))
    assert not judge.unchanged(nudged, x)
    assert judge.unchanged(x.clone(), x)


def test_other_dtype_or_sign_of_zero_counts_as_a_change():
    x = torch.tensor([0.0, 2.0])
    assert not judge.unchanged(x.double(), x)
    assert not judge.unchanged(torch.tensor([-0.0, 2.0]), x)
    assert not judge.unchanged(x.reshape(2, 1), x)


def test_nan_left_in_place_is_unchanged():
    x = torch.tensor([float("nan"), 1.0])
    assert judge.unchanged(x.clone(), x)


def test_modifies_x_message_names_both_fixes():
    message = judge.MESSAGES["modifies_x"]
    assert "x.clone()" in message and "old value" in message and "last digit" in message


def float32_result(f, x, eps=1e-4):
    return correct(f, x, eps).float()  # the right estimate, as float32 whatever x is


def float32_forward_difference(f, x, eps=1e-4):
    grad = torch.zeros(x.shape)
    for i in range(x.numel()):
        up = x.clone()
        up.view(-1)[i] += eps
        grad.view(-1)[i] = (f(up) - f(x)) / eps
    return grad


@pytest.mark.parametrize("seed", SEEDS)
def test_a_float32_result_for_a_float64_x_is_wrong_dtype(seed):
    scenarios = ex.suite("all", seed)
    verdict = judge.judge(scenarios, observations_of("finite_difference_grad", float32_result, scenarios))
    assert verdict.code == "wrong_dtype", verdict.message
    assert "float32" in verdict.message and "float64" in verdict.message


def test_a_wrong_estimate_in_the_wrong_dtype_names_both():
    scenarios = ex.suite()
    verdict = judge.judge(scenarios, observations_of("finite_difference_grad", float32_forward_difference, scenarios))
    assert verdict.code == "forward_difference", verdict.message
    assert "dtype is float32 while x is float64" in verdict.message
