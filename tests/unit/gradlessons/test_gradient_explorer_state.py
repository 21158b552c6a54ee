"""Tests of the explorer's model: plain Python and PyTorch, no widgets."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import gradlessons
from gradlessons.formatting import format_value
from gradlessons.gradient_explorer.state import ACTIONS, GradExplorerState, Record


def autograd_gradient(weight: float, state: GradExplorerState) -> float:
    """d loss / d w at ``weight``, computed independently with torch.autograd.grad."""
    w = torch.tensor(weight, dtype=torch.float64, requires_grad=True)
    loss = ((w * state.xs - state.ys) ** 2).mean()
    (grad,) = torch.autograd.grad(loss, w)
    return grad.item()


def default_zero_grad_result() -> float | None:
    """What a plain ``optimizer.zero_grad()`` leaves in .grad on this PyTorch, seen directly."""
    w = torch.nn.Parameter(torch.tensor(1.0))
    w.grad = torch.tensor(5.0)
    torch.optim.SGD([w], lr=0.1).zero_grad()
    return None if w.grad is None else w.grad.item()


@pytest.fixture
def state():
    return GradExplorerState()


def test_grad_is_none_before_the_first_backward(state):
    assert state.w.grad is None
    assert state.grad is None
    (start,) = state.history
    assert start.action == "start"
    assert start.grad is None
    assert start.index == 0


def test_the_setup_is_a_float64_parameter_with_a_real_sgd_optimizer(state):
    assert isinstance(state.w, torch.nn.Parameter)
    assert state.w.dtype == torch.float64
    assert isinstance(state.optimizer, torch.optim.SGD)
    assert state.optimizer.param_groups[0]["params"] == [state.w]
    assert state.optimizer.param_groups[0]["lr"] == state.lr


def test_the_first_gradient_is_an_easy_number_that_autograd_agrees_with(state):
    record = state.backward()
    assert record.grad == pytest.approx(-8.0)
    assert record.grad == pytest.approx(autograd_gradient(state.w0, state))
    assert record.action == "loss.backward()"


def test_backward_twice_doubles_the_gradient(state):
    single = autograd_gradient(state.weight, state)
    state.backward()
    record = state.backward()
    assert record.grad == pytest.approx(2 * single)
    assert state.w.grad.item() == pytest.approx(2 * single)
    assert state.backward_count_since_clear == 2


def test_backward_notes_tell_stored_from_accumulated(state):
    first = state.backward()
    second = state.backward()
    assert "stored -8.0" in first.note
    assert "accumulated" not in first.note
    assert "added -8.0" in second.note
    assert "it was -8.0, now -16.0" in second.note
    assert "accumulated" in second.note


def test_plain_zero_grad_does_what_this_pytorch_really_does(state):
    state.backward()
    record = state.zero_grad()
    expected = default_zero_grad_result()
    assert record.action == "optimizer.zero_grad()"
    if expected is None:
        assert record.grad is None
        assert state.w.grad is None
        assert "set_to_none=True" in record.note
    else:
        assert record.grad == 0.0
        assert "set_to_none=False" in record.note


def test_zero_grad_with_set_to_none_true_leaves_none(state):
    state.backward()
    record = state.zero_grad_set_to_none()
    assert record.action == "optimizer.zero_grad(set_to_none=True)"
    assert record.grad is None
    assert state.w.grad is None


def test_zero_grad_with_set_to_none_false_fills_zeros_which_are_not_none(state):
    state.backward()
    record = state.zero_grad_fill_zeros()
    assert record.action == "optimizer.zero_grad(set_to_none=False)"
    assert record.grad is not None
    assert record.grad == 0.0
    assert isinstance(state.w.grad, torch.Tensor)
    assert "filled w.grad with 0.0" in record.note


def test_filling_zeros_cannot_create_a_gradient_that_does_not_exist(state):
    record = state.zero_grad_fill_zeros()
    assert record.grad is None
    assert "left it None" in record.note


def test_assigning_none_to_grad_leaves_none(state):
    state.backward()
    record = state.grad_to_none()
    assert record.action == "w.grad = None"
    assert record.grad is None
    assert state.w.grad is None


@pytest.mark.parametrize("clear", ["zero_grad", "zero_grad_set_to_none", "zero_grad_fill_zeros", "grad_to_none"])
def test_every_clear_is_marked_and_restarts_the_backward_count(state, clear):
    state.backward()
    state.backward()
    record = state.apply(clear)
    assert record.is_clear
    assert state.backward_count_since_clear == 0
    after = state.backward()
    assert not after.is_clear
    # After any clear, one backward gives exactly one fresh gradient again.
    assert after.grad == pytest.approx(autograd_gradient(state.weight, state))


def test_step_moves_w_by_minus_lr_times_grad(state):
    state.backward()
    state.backward()
    grad = state.grad
    before = state.weight
    record = state.step()
    assert record.action == "optimizer.step()"
    assert record.weight == pytest.approx(before - state.lr * grad)
    assert state.weight == pytest.approx(0.8)
    assert "moved w from 0.0 to 0.8" in record.note


def test_step_with_grad_none_leaves_w_unchanged(state):
    before = state.weight
    record = state.step()
    assert record.weight == before
    assert record.note == "step() saw w.grad = None and left w unchanged (SGD skips it)"


def test_step_with_grad_zero_leaves_w_unchanged(state):
    state.backward()
    state.step()
    state.backward()
    state.zero_grad_fill_zeros()
    before = state.weight
    record = state.step()
    assert record.grad == 0.0
    assert record.weight == before
    assert "w.grad = 0.0" in record.note


def test_step_does_not_touch_the_gradient(state):
    state.backward()
    grad = state.grad
    record = state.step()
    assert record.grad == grad


def test_loss_is_recorded_at_the_current_weight(state):
    assert state.history[0].loss == pytest.approx(4.0)
    state.backward()
    record = state.step()
    with torch.no_grad():
        expected = ((record.weight * state.xs - state.ys) ** 2).mean().item()
    assert record.loss == pytest.approx(expected)
    assert record.loss < state.history[0].loss


def test_reset_restores_the_initial_weight_grad_and_history(state):
    for name in ["backward", "backward", "step", "zero_grad_fill_zeros", "backward"]:
        state.apply(name)
    old_optimizer = state.optimizer
    record = state.reset()
    assert state.weight == state.w0
    assert state.w.grad is None
    assert state.backward_count_since_clear == 0
    assert state.optimizer is not old_optimizer
    assert state.optimizer.param_groups[0]["params"] == [state.w]
    assert state.history == (record,)
    assert record.index == 0
    assert record.action == "start"
    assert state.backward().grad == pytest.approx(-8.0)


def test_history_is_capped_and_keeps_counting():
    state = GradExplorerState(max_history=5)
    for _ in range(12):
        state.backward()
    history = state.history
    assert len(history) == 5
    assert [r.index for r in history] == [8, 9, 10, 11, 12]
    assert state.log_lines()[0].lstrip().startswith("8.")


def test_the_default_history_cap_is_200():
    state = GradExplorerState()
    for _ in range(250):
        state.grad_to_none()
    assert len(state.history) == 200
    assert state.history[-1].index == 250


def test_history_is_a_snapshot_of_frozen_records(state):
    state.backward()
    history = state.history
    assert isinstance(history, tuple)
    assert all(isinstance(r, Record) for r in history)
    with pytest.raises(AttributeError):
        history[0].grad = 1.0


def test_log_lines_are_numbered_in_order(state):
    state.backward()
    state.step()
    lines = state.log_lines()
    assert len(lines) == 3
    assert lines[0].lstrip().startswith("0. start")
    assert lines[1].lstrip().startswith("1. loss.backward()")
    assert lines[2].lstrip().startswith("2. optimizer.step()")
    assert state.history[2].note in lines[2]


def test_every_action_label_is_the_code_a_student_would_write(state):
    labels = {name: state.apply(name).action for name in ACTIONS if name != "reset"}
    assert labels == {
        "backward": "loss.backward()",
        "step": "optimizer.step()",
        "zero_grad": "optimizer.zero_grad()",
        "zero_grad_set_to_none": "optimizer.zero_grad(set_to_none=True)",
        "zero_grad_fill_zeros": "optimizer.zero_grad(set_to_none=False)",
        "grad_to_none": "w.grad = None",
    }


def test_an_unknown_action_is_rejected(state):
    with pytest.raises(ValueError, match="unknown action"):
        state.apply("explode")


def test_a_history_cap_below_one_is_rejected():
    with pytest.raises(ValueError, match="max_history"):
        GradExplorerState(max_history=0)


def test_none_and_zero_are_formatted_differently():
    assert format_value(None) == "None"
    assert format_value(0.0) == "0.0"
    assert format_value(-0.0) == "0.0"
    assert format_value(-16.0) == "-16.0"
    assert format_value(0.05 * 16) == "0.8"


def test_the_state_module_imports_no_widget_or_plotting_library():
    code = (
        "import sys\n"
        "from gradlessons.gradient_explorer import GradExplorerState\n"
        "GradExplorerState().backward()\n"
        "print(sorted(m for m in ('ipywidgets', 'matplotlib') if m in sys.modules))\n"
    )
    # A fresh interpreter, so that modules imported by other tests do not count.
    package_parent = str(Path(gradlessons.__file__).resolve().parents[1])
    pythonpath = os.pathsep.join([package_parent, os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": pythonpath}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert result.stdout.strip() == "[]"


# ---------------------------------------------------------------------- the guide

# The guided sequence from the start: (action, step shown afterwards, text of what to look at).
GUIDE_WALK = [
    ("backward", 1, ""),
    ("backward", 1, ""),
    ("backward", 2, "`w.grad` is -24.0: 3 times -8.0, the gradient of one `backward()` at w = 0.0"),
    ("step", 3, "moved w from 0.0 to 1.2"),
    ("zero_grad", 4, "`w.grad` is None"),
    ("backward", 5, "`w.grad` is 1.6: exactly the gradient at w = 1.2, with nothing old added"),
    ("step", 6, "w moved from 1.2 to 1.12 and the loss fell from 0.16 to 0.0576"),
    ("zero_grad_fill_zeros", 7, "`w.grad` is 0.0"),
]


def test_the_guide_starts_at_step_one(state):
    guide = state.guide
    assert not guide.finished
    assert guide.heading == "Step 1 of 6"
    assert "`loss.backward()` three times" in guide.prompt
    assert guide.note == ""


def test_following_the_guide_walks_through_every_step(state):
    for action, shown, look in GUIDE_WALK:
        state.apply(action)
        assert state.guide.index + 1 == shown, action
        assert look in state.guide.note, action
    assert state.guide.finished
    assert state.guide.heading == "Finished"
    assert "restart guide" in state.guide.prompt


def test_the_guide_says_the_piled_up_step_overshoots_the_best_value(state):
    for action in ["backward", "backward", "backward", "step"]:
        state.apply(action)
    message = state.guide.note
    assert "it used everything in `w.grad` (-24.0)" in message
    assert "a step 3 times as long as one gradient asks for" in message
    assert "overshot the best value 1.0" in message


def test_the_guide_waits_for_the_action_it_asks_for(state):
    state.apply("backward")
    state.apply("step")  # not what step 1 asks
    state.apply("backward")
    assert state.guide.index == 0
    state.apply("backward")  # three backward() calls without a clear, at two different weights
    assert state.guide.index == 1
    assert "the sum of the 3 gradients computed since the last clear" in state.guide.note


def test_a_clear_before_three_backwards_starts_the_count_again(state):
    state.apply("backward")
    state.apply("backward")
    state.apply("zero_grad")
    state.apply("backward")
    state.apply("backward")
    assert state.guide.index == 0
    state.apply("backward")
    assert state.guide.index == 1


def test_a_step_that_does_not_move_w_does_not_count(state):
    for action in ["backward", "backward", "backward", "zero_grad", "step"]:
        state.apply(action)
    assert state.guide.index == 1


@pytest.mark.parametrize("clear", ["zero_grad", "zero_grad_set_to_none", "grad_to_none", "zero_grad_fill_zeros"])
def test_any_clear_of_a_real_gradient_completes_the_clearing_step(state, clear):
    for action in ["backward", "backward", "backward", "step"]:
        state.apply(action)
    state.apply(clear)
    assert state.guide.index == 3
    expected = "0.0 (the orange diamond)" if clear == "zero_grad_fill_zeros" else "is None"
    assert expected in state.guide.note


def test_the_clean_step_needs_a_fresh_gradient(state):
    for action in ["backward", "backward", "backward", "step", "zero_grad", "backward", "backward", "step"]:
        state.apply(action)
    assert state.guide.index == 4  # two backward() calls since the clear: not a clean step


def test_reset_in_the_middle_of_the_guide_starts_it_again(state):
    for action in ["backward", "backward", "backward", "step"]:
        state.apply(action)
    state.apply("reset")
    assert state.guide.index == 0
    assert state.guide.note == ""


def test_reset_after_the_guide_keeps_it_finished(state):
    for action, _, _ in GUIDE_WALK:
        state.apply(action)
    state.apply("reset")
    assert state.guide.finished
    state.apply("backward")
    assert state.guide.heading == "Finished"


def test_skipping_a_step_moves_the_guide_on_and_the_buttons_keep_working(state):
    state.skip_guide_step()
    assert state.guide.index == 1 and state.guide.note == "Step 1 skipped."
    for action in ["backward", "backward", "backward"]:
        state.apply(action)
    assert state.guide.index == 1  # step 2 asks for step()
    assert state.grad == pytest.approx(-24.0)
    off_script = "That was not this step's action: this step asks you to click `optimizer.step()`"
    assert state.guide.note.startswith(off_script)
    for _ in range(5):
        state.skip_guide_step()
    assert state.guide.finished
    state.skip_guide_step()  # nothing left to skip (the view disables the button)
    assert state.guide.finished


def test_l3_step_6_names_the_guide_step_it_compares_with():
    from gradlessons.gradient_explorer.state import guide_steps

    assert "guide step 3" in guide_steps()[5].prompt


def test_restarting_the_guide_resets_the_explorer_too(state):
    for action in ["backward", "backward", "backward", "step"]:
        state.apply(action)
    state.skip_guide_step()
    record = state.restart_guide()
    assert state.guide.index == 0
    assert record.action == "start"
    assert state.weight == state.w0 and state.grad is None
    assert state.history == (record,)


def test_a_guide_needs_steps():
    from gradlessons.guide import Guide

    with pytest.raises(ValueError, match="at least one step"):
        Guide([])


def test_records_know_the_values_before_the_action(state):
    state.backward()
    record = state.step()
    assert record.weight_before == 0.0
    assert record.weight == pytest.approx(0.4)
    assert record.grad_before == pytest.approx(-8.0)
    cleared = state.zero_grad()
    assert cleared.grad_before == pytest.approx(-8.0)
    assert cleared.weight_before == cleared.weight


def test_the_guide_computes_one_gradient_without_touching_w_grad(state):
    state.backward()
    assert state.gradient_at(0.0) == pytest.approx(-8.0)
    assert state.gradient_at(1.2) == pytest.approx(1.6)
    assert state.grad == pytest.approx(-8.0)
    assert state.loss_at(1.0) == 0.0
    assert state.loss_at(0.0) == pytest.approx(4.0)
