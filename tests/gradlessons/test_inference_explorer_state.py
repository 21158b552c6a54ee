"""Tests of the lesson 4 explorer state: real forward passes, read back from PyTorch."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import gradlessons
from gradlessons.inference_explorer import InferenceExplorerState, Run


@pytest.fixture
def state():
    return InferenceExplorerState(in_features=16, hidden=32, repeats=1)


def run_with(state, no_grad=False, inference_mode=False, eval_mode=False, batch=64) -> Run:
    state.no_grad, state.inference_mode, state.eval_mode = no_grad, inference_mode, eval_mode
    state.set_batch_size(batch)
    return state.run()


def test_a_tracked_run_builds_a_graph_and_saves_activations(state):
    run = run_with(state)
    assert run.requires_grad and run.grad_fn == "AddmmBackward0"
    assert run.saved_bytes > 0
    assert run.tracking == "tracking"


@pytest.mark.parametrize("switch", ["no_grad", "inference_mode"])
def test_no_grad_and_inference_mode_build_no_graph_and_save_nothing(state, switch):
    run = run_with(state, **{switch: True})
    assert not run.requires_grad
    assert run.grad_fn is None
    assert run.saved_bytes == 0
    assert run.tracking == switch


def test_saved_memory_grows_with_the_batch_size_only_when_tracking(state):
    small, big = run_with(state, batch=32), run_with(state, batch=256)
    assert big.saved_bytes > 4 * small.saved_bytes
    assert run_with(state, no_grad=True, batch=256).saved_bytes == 0


def test_parameters_are_not_counted_as_saved_activations(state):
    # The saved bytes scale with the batch: nothing of fixed size (like a weight) is counted.
    a, b = run_with(state, eval_mode=True, batch=32), run_with(state, eval_mode=True, batch=64)
    assert b.saved_bytes == 2 * a.saved_bytes


def test_eval_alone_still_tracks_and_no_grad_alone_still_drops_out(state):
    eval_only = run_with(state, eval_mode=True)
    assert eval_only.requires_grad and not eval_only.dropout_active
    assert eval_only.max_diff_vs_eval == 0.0
    no_grad_only = run_with(state, no_grad=True)
    assert not no_grad_only.requires_grad and no_grad_only.dropout_active
    assert no_grad_only.max_diff_vs_eval > 0.0


def test_two_train_mode_runs_on_the_same_input_differ_but_eval_runs_agree(state):
    run_with(state, no_grad=True)
    first = state.last_output
    run_with(state, no_grad=True)
    assert not torch.equal(first, state.last_output)
    run_with(state, no_grad=True, eval_mode=True)
    first = state.last_output
    run_with(state, no_grad=True, eval_mode=True)
    assert torch.equal(first, state.last_output)


def test_the_same_batch_size_gives_the_same_input(state):
    assert torch.equal(state.inputs(40), state.inputs(40))
    assert state.inputs(40).shape == (40, 16)


def test_grad_mode_is_back_on_after_every_run(state):
    run_with(state, no_grad=True)
    run_with(state, inference_mode=True)
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()


def test_runs_are_numbered_timed_and_logged(state):
    runs = [run_with(state), run_with(state, no_grad=True, eval_mode=True)]
    assert [r.index for r in runs] == [1, 2]
    assert all(r.seconds > 0 for r in runs)
    lines = state.log_lines()
    assert "model.eval() + torch.no_grad()" in lines[1]
    assert "grad_fn=None" in lines[1]


def test_reset_forgets_runs_and_clears_the_switches(state):
    run_with(state, no_grad=True, eval_mode=True, batch=512)
    state.reset()
    assert state.history == ()
    assert (state.no_grad, state.inference_mode, state.eval_mode, state.batch_size) == (False, False, False, 256)
    assert state.run().index == 1


def test_history_is_capped():
    state = InferenceExplorerState(in_features=8, hidden=8, repeats=1, max_history=3)
    for _ in range(5):
        state.run()
    assert [r.index for r in state.history] == [3, 4, 5]


def test_bad_arguments_are_rejected(state):
    with pytest.raises(ValueError, match="batch size"):
        state.set_batch_size(1)
    with pytest.raises(ValueError, match="max_history"):
        InferenceExplorerState(max_history=0)


def test_the_state_module_imports_no_widget_or_plotting_library():
    code = (
        "import sys\n"
        "from gradlessons.inference_explorer import InferenceExplorerState\n"
        "InferenceExplorerState(in_features=4, hidden=4).run()\n"
        "print(sorted(m for m in ('ipywidgets', 'matplotlib') if m in sys.modules))\n"
    )
    package_parent = str(Path(gradlessons.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([package_parent, os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert result.stdout.strip() == "[]"
