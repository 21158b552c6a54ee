"""Tests of the tangent explorer's model: plain Python and PyTorch, no widgets."""

import math
import subprocess
import sys

import pytest
import torch

from gradlessons.tangent_explorer.state import FUNCTIONS, GUIDE_STEPS, X_RANGE, Guide, TangentExplorerState
from tests.conftest import ROOT


def autograd_slope(function: str, x: float) -> float:
    """The derivative at x, computed independently with torch.autograd.grad."""
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(FUNCTIONS[function].fn(t), t)
    return grad.item()


@pytest.mark.parametrize("function", list(FUNCTIONS))
@pytest.mark.parametrize("x", [-1.7, -0.3, 0.45, 2.0])
def test_slope_comes_from_backward(function, x):
    state = TangentExplorerState(function, x)
    assert state.backward_calls == 1
    assert state.t.is_leaf and state.t.requires_grad
    assert state.true_slope == pytest.approx(autograd_slope(function, x), rel=1e-12)
    assert state.held_slope == state.true_slope


@pytest.mark.parametrize("function", list(FUNCTIONS))
def test_finite_difference_is_close(function):
    state = TangentExplorerState(function, 0.7)
    assert state.finite_difference_slope() == pytest.approx(state.true_slope, abs=1e-5)


def test_backward_again_adds_slope():
    state = TangentExplorerState("cubic", 1.3)
    slope = state.true_slope
    for calls in range(2, 6):
        state.backward_again()
        assert state.backward_calls == calls
        assert state.held_slope == pytest.approx(calls * slope)
        assert state.true_slope == slope
    assert state.grad_history == pytest.approx([k * slope for k in range(1, 6)])


def test_changes_start_a_fresh_leaf():
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


def test_reset_to_x_squared_at_one():
    state = TangentExplorerState("relu_ish", -2.0)
    state.backward_again()
    state.reset()
    assert (state.function, state.x, state.grad_history) == ("square", 1.0, [2.0])


def test_relu_ish_slopes_0_2_and_1_2():
    assert TangentExplorerState("relu_ish", -0.5).true_slope == pytest.approx(0.2)
    assert TangentExplorerState("relu_ish", 0.5).true_slope == pytest.approx(1.2)


def test_tangent_through_the_point():
    state = TangentExplorerState("square", 1.5)
    xs, ys = state.tangent(3.0)
    assert (ys[1] - ys[0]) / (xs[1] - xs[0]) == pytest.approx(3.0)
    assert ys[0] + 3.0 * (1.5 - xs[0]) == pytest.approx(2.25)


def test_curve_covers_whole_range():
    xs, ys = TangentExplorerState().curve(n=11)
    assert (xs[0], xs[-1]) == X_RANGE and len(ys) == 11
    assert ys[0] == pytest.approx(X_RANGE[0] ** 2)


def test_summary_names_the_multiple():
    state = TangentExplorerState("square", 1.0)
    assert "slope 2.0" in state.summary() and "×" not in state.summary()
    state.backward_again()
    state.backward_again()
    assert "t.grad holds 6.0 = 3 × the slope" in state.summary()


@pytest.mark.parametrize("bad", [{"function": "tan"}, {"x": 9.0}])
def test_bad_choices_refused(bad):
    with pytest.raises(ValueError):
        TangentExplorerState(**{"function": "square", "x": 1.0, **bad})


def test_no_widget_or_plot_imports():
    code = (
        "import sys; import gradlessons.tangent_explorer as t; t.TangentExplorerState();"
        "print('ipywidgets' in sys.modules, 'matplotlib' in sys.modules)"
    )
    root = ROOT
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True)
    assert done.stdout.split() == ["False", "False"]


# ---------------------------------------------------------------- the guided tour


def do_the_tour(state: TangentExplorerState) -> list[str]:
    """Follow every step of the guide as a student would; returns each step's message."""
    messages = []
    state.set_x(0.0)  # step 1: the flat tangent of x²
    messages.append(state.guide.note)
    state.set_function("cubic")
    state.set_x(0.8)  # step 2: near a flat point of x³ − 2x
    messages.append(state.guide.note)
    state.set_function("relu_ish")
    state.set_x(-1.0)
    state.set_x(0.0)  # step 3: the kink
    messages.append(state.guide.note)
    for _ in range(3):
        state.backward_again()  # step 4: gradients pile up
    messages.append(state.guide.note)
    return messages


def test_guide_starts_at_step_one():
    guide = TangentExplorerState().guide
    assert (guide.index, guide.finished, guide.note) == (0, False, "")
    assert guide.heading == f"Step 1 of {len(GUIDE_STEPS)}" and guide.prompt.startswith("With f(x) = x², move the x")


def test_guide_uses_the_real_numbers():
    state = TangentExplorerState()
    messages = do_the_tour(state)
    assert messages[0].startswith("✓ Step 1 done. At x = 0, backward() gives slope 0.0")
    assert messages[1].startswith("✓ Step 2 done. At x = 0.80, backward() gives slope -0.08")
    assert messages[2].startswith("✓ Step 3 done.")
    assert "backward() gives 0.2" in messages[2] and "averages the two sides: 0.7000" in messages[2]
    assert messages[3].startswith("✓ Step 4 done. t.grad now holds 0.8 = 4 × the slope 0.2")
    assert state.guide.finished and state.guide.heading == "Finished"


def test_steps_wait_for_their_goal():
    state = TangentExplorerState()
    state.set_function("cubic")
    state.set_x(0.8)  # step 2's goal, reached during step 1: does not count
    state.backward_again()
    assert state.guide.index == 0
    state.set_function("square")
    state.set_x(0.05)  # slope 0.1: not flat
    assert state.guide.index == 0
    state.set_x(0.0)
    assert state.guide.index == 1
    state.set_x(1.5)
    state.set_function("cubic")  # slope 4.75 at 1.5: not flat yet
    assert state.guide.index == 1
    state.set_x(-0.85)  # slope 0.1675
    assert state.guide.index == 2


def test_kink_step_slopes_at_zero():
    """At the kink: PyTorch's slope at zero, and the finite difference that averages both sides."""
    state = TangentExplorerState("relu_ish", 0.3)
    state.guide.index = 2
    state.set_x(1e-17)  # the slider's float steps may not land on 0.0 exactly
    assert state.x == 0.0 and state.guide.index == 3
    assert state.true_slope == pytest.approx(0.2)
    assert state.finite_difference_slope() == pytest.approx(0.7)


def test_starting_at_goal_is_not_done():
    state = TangentExplorerState("square", 0.0)
    assert state.guide.index == 0
    state.set_x(0.5)
    state.set_x(0.0)
    assert state.guide.index == 1


def test_skip_moves_on_controls_work():
    state = TangentExplorerState()
    state.skip_guide_step()
    assert state.guide.index == 1 and state.guide.note == "Step 1 skipped."
    assert state.guide.heading == "Step 2 of 4" and state.guide.prompt.startswith("Choose x³ − 2x")
    state.set_function("cubic")
    state.set_x(-0.8)
    assert state.guide.index == 2 and state.guide.note.startswith("✓ Step 2 done.")


def test_skip_all_then_restart():
    state = TangentExplorerState("sin", 0.5)
    state.backward_again()  # not step 1's action
    assert state.guide.note.startswith("That was not this step's action: this step asks you to choose f(x) = x²")
    for _ in range(4):
        state.skip_guide_step()
    assert state.guide.finished and state.guide.note == "Step 4 skipped."
    state.set_function("square")
    state.set_x(0.0)  # nothing to check any more
    state.backward_again()
    assert state.held_slope == 0.0 and state.guide.note == ""
    state.restart_guide()
    assert (state.function, state.x, state.grad_history) == ("square", 1.0, [2.0])
    assert (state.guide.index, state.guide.note) == (0, "")
    do_the_tour(state)
    assert state.guide.finished


def test_reset_keeps_guide_place():
    state = TangentExplorerState()
    state.set_x(0.0)
    state.reset()
    assert state.guide.index == 1 and state.guide.note == ""  # "at x = 0 ..." is not true of x = 1


def test_choosing_the_cubic_during_step_two_does_not_repeat_step_one():
    state = TangentExplorerState()
    state.set_x(0.0)
    assert state.guide.note.startswith("✓ Step 1 done.")
    state.set_function("cubic")  # step 2's first action: it did not do step 1 again
    assert state.guide.index == 1 and state.guide.note == ""
    state.set_x(1.5)
    assert "done" not in state.guide.note


def test_at_a_flat_point_repeated_backward_calls_do_not_call_the_red_tangent_wrong():
    state = TangentExplorerState("square", 0.0)
    state.backward_again()
    assert state.held_slope == state.true_slope == 0.0  # the red dashed line is drawn on the green one
    assert "wrong" not in state.summary().replace("would be wrong", "")
    assert "lies on the green one" in state.summary()
    state.guide.index = 3  # the guide's step 4 done at x = 0
    state.backward_again()
    state.backward_again()
    assert state.guide.finished and "lies on the green one" in state.guide.note
    assert "so the red dashed tangent is wrong" not in state.guide.note


def test_away_from_a_flat_point_repeated_backward_calls_call_the_red_tangent_wrong():
    state = TangentExplorerState("square", 1.0)
    state.backward_again()
    assert state.held_slope == 2 * state.true_slope
    assert state.summary().endswith("t.grad holds 4.0 = 2 × the slope, so the red dashed tangent is wrong.")


def test_controls_can_do_every_step():
    for index, step in enumerate(GUIDE_STEPS):
        assert step.prompt[0].isupper() and step.prompt.endswith(".")
        reached = []
        for function in FUNCTIONS:
            for k in range(-50, 51):
                state = TangentExplorerState(function, k * 0.05)
                for calls in range(4):
                    if step.done(state):
                        reached.append((function, k, calls))
                    state.backward_again()
        assert reached, f"step {index + 1} can never be done"


def test_a_guide_needs_steps():
    with pytest.raises(ValueError):
        Guide([])
