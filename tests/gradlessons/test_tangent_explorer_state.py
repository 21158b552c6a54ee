"""Tests of the tangent explorer's model: plain Python and PyTorch, no widgets."""

import math
import os
import subprocess
import sys

import pytest
import torch

from gradlessons.tangent_explorer.state import FUNCTIONS, X_RANGE, TangentExplorerState


def autograd_slope(function: str, x: float) -> float:
    """The derivative at x, computed independently with torch.autograd.grad."""
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(FUNCTIONS[function].fn(t), t)
    return grad.item()


@pytest.mark.parametrize("function", list(FUNCTIONS))
@pytest.mark.parametrize("x", [-1.7, -0.3, 0.45, 2.0])
def test_the_slope_is_what_a_real_backward_leaves_in_grad(function, x):
    state = TangentExplorerState(function, x)
    assert state.backward_calls == 1
    assert state.t.is_leaf and state.t.requires_grad
    assert state.true_slope == pytest.approx(autograd_slope(function, x), rel=1e-12)
    assert state.held_slope == state.true_slope


@pytest.mark.parametrize("function", list(FUNCTIONS))
def test_the_finite_difference_slope_is_close_to_the_backward_slope(function):
    state = TangentExplorerState(function, 0.7)
    assert state.finite_difference_slope() == pytest.approx(state.true_slope, abs=1e-5)


def test_backward_again_adds_the_slope_each_time_without_clearing():
    state = TangentExplorerState("cubic", 1.3)
    slope = state.true_slope
    for calls in range(2, 6):
        state.backward_again()
        assert state.backward_calls == calls
        assert state.held_slope == pytest.approx(calls * slope)
        assert state.true_slope == slope
    assert state.grad_history == pytest.approx([k * slope for k in range(1, 6)])


def test_moving_x_or_changing_the_function_starts_a_fresh_leaf():
    state = TangentExplorerState("sin", 0.5)
    state.backward_again()
    old_leaf = state.t
    state.set_x(1.0)
    assert state.t is not old_leaf
    assert state.backward_calls == 1
    assert state.held_slope == pytest.approx(math.cos(1.0))
    state.backward_again()
    state.set_function("gauss")
    assert state.backward_calls == 1
    assert state.held_slope == pytest.approx(-2 * 1.0 * math.exp(-1.0))


def test_reset_goes_back_to_x_squared_at_one():
    state = TangentExplorerState("relu_ish", -2.0)
    state.backward_again()
    state.reset()
    assert (state.function, state.x, state.grad_history) == ("square", 1.0, [2.0])


def test_the_relu_ish_function_has_slope_0_2_left_of_the_kink_and_1_2_right_of_it():
    assert TangentExplorerState("relu_ish", -0.5).true_slope == pytest.approx(0.2)
    assert TangentExplorerState("relu_ish", 0.5).true_slope == pytest.approx(1.2)


def test_the_tangent_passes_through_the_point_with_the_given_slope():
    state = TangentExplorerState("square", 1.5)
    xs, ys = state.tangent(3.0)
    assert (ys[1] - ys[0]) / (xs[1] - xs[0]) == pytest.approx(3.0)
    assert ys[0] + 3.0 * (1.5 - xs[0]) == pytest.approx(2.25)


def test_the_curve_covers_the_whole_range():
    xs, ys = TangentExplorerState().curve(n=11)
    assert (xs[0], xs[-1]) == X_RANGE and len(ys) == 11
    assert ys[0] == pytest.approx(X_RANGE[0] ** 2)


def test_the_summary_names_the_multiple_after_repeated_calls():
    state = TangentExplorerState("square", 1.0)
    assert "slope 2.0" in state.summary() and "×" not in state.summary()
    state.backward_again()
    state.backward_again()
    assert "t.grad holds 6.0 = 3 × the slope" in state.summary()


@pytest.mark.parametrize("bad", [{"function": "tan"}, {"x": 9.0}])
def test_bad_choices_are_refused(bad):
    with pytest.raises(ValueError):
        TangentExplorerState(**{"function": "square", "x": 1.0, **bad})


def test_the_state_imports_neither_ipywidgets_nor_matplotlib():
    code = (
        "import sys; import gradlessons.tangent_explorer as t; t.TangentExplorerState();"
        "print('ipywidgets' in sys.modules, 'matplotlib' in sys.modules)"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True)
    assert done.stdout.split() == ["False", "False"]
