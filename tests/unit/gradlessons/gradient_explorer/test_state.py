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


def test_grad_none_before_backward(state):
    assert state.w.grad is None
    assert state.grad is None
    (start,) = state.history
    assert start.action == "start"
    assert start.grad is None
    assert start.index == 0


def test_float64_parameter_real_sgd(state):
    assert isinstance(state.w, torch.nn.Parameter)
    assert state.w.dtype == torch.float64
    assert isinstance(state.optimizer, torch.optim.SGD)
    assert state.optimizer.param_groups[0]["params"] == [state.w]
    assert state.optimizer.param_groups[0]["lr"] == state.lr


def test_first_grad_matches_autograd(state):
    record = state.backward()
    assert record.grad == pytest.approx(-8.0)
    assert record.grad == pytest.approx(autograd_gradient(state.w0, state))
    assert record.action == "loss.backward()"


def test_backward_twice_doubles_grad(state):
    single = autograd_gradient(state.weight, state)
    state.backward()
    record = state.backward()
    assert record.grad == pytest.approx(2 * single)
    assert state.w.grad.item() == pytest.approx(2 * single)
    assert state.backward_count_since_clear == 2


def test_notes_stored_vs_accumulated(state):
    first = state.backward()
    second = state.backward()
    assert "stored -8.0" in first.note
    assert "accumulated" not in first.note
    assert "added -8.0" in second.note
    assert "it was -8.0, now -16.0" in second.note
    assert "accumulated" in second.note


def test_zero_grad_as_this_pytorch(state):
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


def test_set_to_none_leaves_none(state):
    state.backward()
    record = state.zero_grad_set_to_none()
    assert record.action == "optimizer.zero_grad(set_to_none=True)"
    assert record.grad is None
    assert state.w.grad is None


def test_set_to_none_false_zeros(state):
    state.backward()
    record = state.zero_grad_fill_zeros()
    assert record.action == "optimizer.zero_grad(set_to_none=False)"
    assert record.grad is not None
    assert record.grad == 0.0
    assert isinstance(state.w.grad, torch.Tensor)
    assert "filled w.grad with 0.0" in record.note


def test_fill_zeros_creates_no_grad(state):
    record = state.zero_grad_fill_zeros()
    assert record.grad is None
    assert "left it None" in record.note


def test_assigning_none_leaves_none(state):
    state.backward()
    record = state.grad_to_none()
    assert record.action == "w.grad = None"
    assert record.grad is None
    assert state.w.grad is None


@pytest.mark.parametrize("clear", ["zero_grad", "zero_grad_set_to_none", "zero_grad_fill_zeros", "grad_to_none"])
def test_clears_restart_the_count(state, clear):
    state.backward()
    state.backward()
    record = state.apply(clear)
    assert record.is_clear
    assert state.backward_count_since_clear == 0
    after = state.backward()
    assert not after.is_clear
    # After any clear, one backward gives exactly one fresh gradient again.
    assert after.grad == pytest.approx(autograd_gradient(state.weight, state))


def test_step_subtracts_lr_grad(state):
    state.backward()
    state.backward()
    grad = state.grad
    before = state.weight
    record = state.step()
    assert record.action == "optimizer.step()"
    assert record.weight == pytest.approx(before - state.lr * grad)
    assert state.weight == pytest.approx(0.8)
    assert "moved w from 0.0 to 0.8" in record.note


def test_grad_none_step_keeps_w(state):
    before = state.weight
    record = state.step()
    assert record.weight == before
    assert record.note == "step() saw w.grad = None and left w unchanged (SGD skips it)"


def test_grad_zero_step_keeps_w(state):
    state.backward()
    state.step()
    state.backward()
    state.zero_grad_fill_zeros()
    before = state.weight
    record = state.step()
    assert record.grad == 0.0
    assert record.weight == before
    assert "w.grad = 0.0" in record.note


def test_step_leaves_grad_alone(state):
    state.backward()
    grad = state.grad
    record = state.step()
    assert record.grad == grad


def test_loss_recorded_at_current_w(state):
    assert state.history[0].loss == pytest.approx(4.0)
    state.backward()
    record = state.step()
    with torch.no_grad():
        expected = ((record.weight * state.xs - state.ys) ** 2).mean().item()
    assert record.loss == pytest.approx(expected)
    assert record.loss < state.history[0].loss


def test_reset_restores_the_start(state):
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


def test_history_cap_keeps_count():
    state = GradExplorerState(max_history=5)
    for _ in range(12):
        state.backward()
    history = state.history
    assert len(history) == 5
    assert [r.index for r in history] == [8, 9, 10, 11, 12]
    assert state.log_lines()[0].lstrip().startswith("8.")


def test_default_history_cap_is_200():
    state = GradExplorerState()
    for _ in range(250):
        state.grad_to_none()
    assert len(state.history) == 200
    assert state.history[-1].index == 250


def test_history_is_frozen_snapshot(state):
    state.backward()
    history = state.history
    assert isinstance(history, tuple)
    assert all(isinstance(r, Record) for r in history)
    with pytest.raises(AttributeError):
        history[0].grad = 1.0


def test_log_lines_numbered_in_order(state):
    state.backward()
    state.step()
    lines = state.log_lines()
    assert len(lines) == 3
    assert lines[0].lstrip().startswith("0. start")
    assert lines[1].lstrip().startswith("1. loss.backward()")
    assert lines[2].lstrip().startswith("2. optimizer.step()")
    assert state.history[2].note in lines[2]


def test_labels_are_student_code(state):
    labels = {name: state.apply(name).action for name in ACTIONS if name != "reset"}
    assert labels == {
        "backward": "loss.backward()",
        "step": "optimizer.step()",
        "zero_grad": "optimizer.zero_grad()",
        "zero_grad_set_to_none": "optimizer.zero_grad(set_to_none=True)",
        "zero_grad_fill_zeros": "optimizer.zero_grad(set_to_none=False)",
        "grad_to_none": "w.grad = None",
    }


def test_unknown_action_rejected(state):
    with pytest.raises(ValueError, match="unknown action"):
        state.apply("explode")


def test_cap_below_one_rejected():
    with pytest.raises(ValueError, match="max_history"):
        GradExplorerState(max_history=0)


def test_formats_none_unlike_zero():
    assert format_value(None) == "None"
    assert format_value(0.0) == "0.0"
    assert format_value(-0.0) == "0.0"
    assert format_value(-16.0) == "-16.0"
    assert format_value(0.05 * 16) == "0.8"


def test_no_widget_or_plot_imports():
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


def test_guide_starts_at_step_one(state):
    guide = state.guide
    assert not guide.finished
    assert guide.heading == "Step 1 of 6"
    assert "`loss.backward()` three times" in guide.prompt
    assert guide.note == ""


def test_guide_walks_every_step(state):
    for action, shown, look in GUIDE_WALK:
        state.apply(action)
        assert state.guide.index + 1 == shown, action
        assert look in state.guide.note, action
    assert state.guide.finished
    assert state.guide.heading == "Finished"
    assert "restart guide" in state.guide.prompt


def test_guide_names_the_overshoot(state):
    for action in ["backward", "backward", "backward", "step"]:
        state.apply(action)
    message = state.guide.note
    assert "it used everything in `w.grad` (-24.0)" in message
    assert "a step 3 times as long as one gradient asks for" in message
    assert "overshot the best value 1.0" in message


def test_guide_waits_for_action(state):
    state.apply("backward")
    state.apply("step")  # not what step 1 asks
    state.apply("backward")
    assert state.guide.index == 0
    state.apply("backward")  # three backward() calls without a clear, at two different weights
    assert state.guide.index == 1
    assert "the sum of the 3 gradients computed since the last clear" in state.guide.note


def test_clear_before_three_restarts(state):
    state.apply("backward")
    state.apply("backward")
    state.apply("zero_grad")
    state.apply("backward")
    state.apply("backward")
    assert state.guide.index == 0
    state.apply("backward")
    assert state.guide.index == 1


def test_step_must_move_w(state):
    for action in ["backward", "backward", "backward", "zero_grad", "step"]:
        state.apply(action)
    assert state.guide.index == 1


@pytest.mark.parametrize("clear", ["zero_grad", "zero_grad_set_to_none", "grad_to_none", "zero_grad_fill_zeros"])
def test_any_clear_does_clear_step(state, clear):
    for action in ["backward", "backward", "backward", "step"]:
        state.apply(action)
    state.apply(clear)
    assert state.guide.index == 3
    expected = "0.0 (the orange diamond)" if clear == "zero_grad_fill_zeros" else "is None"
    assert expected in state.guide.note


def test_clean_step_needs_fresh_grad(state):
    for action in ["backward", "backward", "backward", "step", "zero_grad", "backward", "backward", "step"]:
        state.apply(action)
    assert state.guide.index == 4  # two backward() calls since the clear: not a clean step


def test_reset_midway_restarts_guide(state):
    for action in ["backward", "backward", "backward", "step"]:
        state.apply(action)
    state.apply("reset")
    assert state.guide.index == 0
    assert state.guide.note == ""


def test_reset_keeps_finished_guide(state):
    for action, _, _ in GUIDE_WALK:
        state.apply(action)
    state.apply("reset")
    assert state.guide.finished
    state.apply("backward")
    assert state.guide.heading == "Finished"


def test_skip_moves_on_buttons_work(state):
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


def test_step_6_names_guide_step_3():
    from gradlessons.gradient_explorer.state import guide_steps

    assert "guide step 3" in guide_steps()[5].prompt


def test_restart_resets_explorer(state):
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


def test_records_know_values_before(state):
    state.backward()
    record = state.step()
    assert record.weight_before == 0.0
    assert record.weight == pytest.approx(0.4)
    assert record.grad_before == pytest.approx(-8.0)
    cleared = state.zero_grad()
    assert cleared.grad_before == pytest.approx(-8.0)
    assert cleared.weight_before == cleared.weight


def test_gradient_at_leaves_w_grad(state):
    state.backward()
    assert state.gradient_at(0.0) == pytest.approx(-8.0)
    assert state.gradient_at(1.2) == pytest.approx(1.6)
    assert state.grad == pytest.approx(-8.0)
    assert state.loss_at(1.0) == 0.0
    assert state.loss_at(0.0) == pytest.approx(4.0)
