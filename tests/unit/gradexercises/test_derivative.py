"""The derivative exercise: references, scenarios and the forked notebook path."""

import math

import pytest
import torch

from autograder.diagnose import diagnose_function
from gradebox.exercises._lesson2 import SCALAR_FUNCTIONS
from gradexercises.derivative import job as ex
from gradexercises.derivative import judge as judge
from tests.judging import observations_of

ANALYTIC = {
    "square": lambda x: 2 * x,
    "sin": math.cos,
    "cubic": lambda x: 3 * x**2 - 2,
    "gauss": lambda x: -2 * x * math.exp(-(x**2)),
    "abs_kink": lambda x: math.copysign(1.0, x) + 0.5,
    "steep": lambda x: 40 / math.cosh(40 * (x - 0.3)) ** 2,
    "relu_mix": lambda x: (3.0 if x > 1 else 0.0) + math.cos(x),
    "softplus_x": lambda x: math.log1p(math.exp(x)) + x / (1 + math.exp(-x)),
}


def correct(f, x):
    t = torch.tensor(x, requires_grad=True)
    f(t).backward()
    return t.grad.item()


def central_difference(f, x, h=1e-4):
    up, down = torch.tensor(x + h, dtype=torch.float64), torch.tensor(x - h, dtype=torch.float64)
    return ((f(up) - f(down)) / (2 * h)).item()


@pytest.mark.parametrize("seed", [0, 1, 11, 12])
def test_reference_is_true_derivative(seed):
    for point in ex.suite("all", seed):
        assert judge.reference(point) == pytest.approx(ANALYTIC[point.function](point.x), rel=1e-9)


def test_analytic_checks_complete():
    assert set(ANALYTIC) == set(SCALAR_FUNCTIONS)


@pytest.mark.parametrize("seed", [0, 11])
def test_kinks_break_difference(seed):
    kinks = [p for p in ex.suite("all", seed) if p.function in ("abs_kink", "relu_mix")]
    assert len(kinks) == 2
    for point in kinks:
        estimate = central_difference(SCALAR_FUNCTIONS[point.function], point.x)
        assert not math.isclose(estimate, judge.reference(point), rel_tol=judge.RTOL, abs_tol=judge.ATOL)


def test_hidden_seeds_use_other_points():
    assert ex.suite("all", 0) != ex.suite("all", 11)


def test_record_survives_round_trip():
    (again,) = observations_of("derivative", correct, ex.suite()[:1])
    assert again["autograd"]["evaluations"][0]["requires_grad"] is True
    assert judge.judge(ex.suite()[:1], [again]).code == "ok"


def returns_tensor(f, x):
    t = torch.tensor(x, requires_grad=True)
    f(t).backward()
    return t.grad


def forward_difference(f, x):
    return ((f(torch.tensor(x + 1e-7)) - f(torch.tensor(x))) / 1e-7).item()


@pytest.mark.parametrize(
    "fn, code", [(correct, "ok"), (returns_tensor, "wrong_type"), (forward_difference, "finite_difference")]
)
def test_forked_path_names_mistake(fn, code):
    verdict, _ = diagnose_function("derivative", fn)
    assert verdict.code == code, verdict.message


def test_off_float_is_wrong_value():
    obs = observations_of("derivative", lambda f, x: correct(f, x) + 0.5, ex.suite()[:1])
    verdict = judge.judge(ex.suite()[:1], obs)
    assert verdict.code == "wrong_value" and "but the derivative is" in verdict.message
