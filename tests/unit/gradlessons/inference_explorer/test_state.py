"""Tests of the lesson 4 explorer state: real forward passes, read back from PyTorch."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import gradlessons
from gradlessons.inference_explorer import Guide, GuideStep, InferenceExplorerState, Run


@pytest.fixture
def state():
    return InferenceExplorerState(in_features=16, hidden=32, repeats=1)


def run_with(state, no_grad=False, inference_mode=False, eval_mode=False, batch=64) -> Run:
    state.no_grad, state.inference_mode, state.eval_mode = no_grad, inference_mode, eval_mode
    state.set_batch_size(batch)
    return state.run()


def test_tracking_saves_activations(state):
    run = run_with(state)
    assert run.requires_grad and run.grad_fn == "AddmmBackward0"
    assert run.saved_bytes > 0
    assert run.tracking == "tracking"


@pytest.mark.parametrize("switch", ["no_grad", "inference_mode"])
def test_no_grad_modes_save_nothing(state, switch):
    run = run_with(state, **{switch: True})
    assert not run.requires_grad
    assert run.grad_fn is None
    assert run.saved_bytes == 0
    assert run.tracking == switch


def test_memory_scales_if_tracked(state):
    small, big = run_with(state, batch=32), run_with(state, batch=256)
    assert big.saved_bytes > 4 * small.saved_bytes
    assert run_with(state, no_grad=True, batch=256).saved_bytes == 0


def test_params_not_counted_as_saved(state):
    # The saved bytes scale with the batch: nothing of fixed size (like a weight) is counted.
    a, b = run_with(state, eval_mode=True, batch=32), run_with(state, eval_mode=True, batch=64)
    assert b.saved_bytes == 2 * a.saved_bytes


def test_eval_tracks_no_grad_drops_out(state):
    eval_only = run_with(state, eval_mode=True)
    assert eval_only.requires_grad and not eval_only.dropout_active
    assert eval_only.max_diff_vs_eval == 0.0
    no_grad_only = run_with(state, no_grad=True)
    assert not no_grad_only.requires_grad and no_grad_only.dropout_active
    assert no_grad_only.max_diff_vs_eval > 0.0


def test_train_runs_differ_eval_agree(state):
    run_with(state, no_grad=True)
    first = state.last_output
    run_with(state, no_grad=True)
    assert not torch.equal(first, state.last_output)
    run_with(state, no_grad=True, eval_mode=True)
    first = state.last_output
    run_with(state, no_grad=True, eval_mode=True)
    assert torch.equal(first, state.last_output)


def test_same_batch_size_same_input(state):
    assert torch.equal(state.inputs(40), state.inputs(40))
    assert state.inputs(40).shape == (40, 16)


def test_grad_mode_back_on_after_run(state):
    run_with(state, no_grad=True)
    run_with(state, inference_mode=True)
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()


def test_runs_numbered_timed_logged(state):
    runs = [run_with(state), run_with(state, no_grad=True, eval_mode=True)]
    assert [r.index for r in runs] == [1, 2]
    assert all(r.seconds > 0 for r in runs)
    lines = state.log_lines()
    assert "model.eval() + torch.no_grad()" in lines[1]
    assert "grad_fn=None" in lines[1]


def test_reset_clears_runs_and_switches(state):
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


def test_bad_arguments_rejected(state):
    with pytest.raises(ValueError, match="batch size"):
        state.set_batch_size(1)
    with pytest.raises(ValueError, match="max_history"):
        InferenceExplorerState(max_history=0)


def test_no_widget_or_plot_imports():
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


# ---------------------------------------------------------------------- saved memory, counted once


def saved_storages(output: torch.Tensor, exclude) -> int:
    """Bytes of the distinct memory behind every `_saved_*` tensor of output's graph (parameters excluded)."""
    skip = {t.untyped_storage().data_ptr() for t in exclude}
    kept, todo, seen = {}, [output.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for name in dir(node):
            value = getattr(node, name) if name.startswith("_saved_") else None
            if isinstance(value, torch.Tensor) and value.untyped_storage().data_ptr() not in skip:
                kept[value.untyped_storage().data_ptr()] = value.untyped_storage().nbytes()
        todo.extend(child for child, _ in node.next_functions)
    return sum(kept.values())


@pytest.mark.parametrize("eval_mode", [False, True])
def test_memory_counted_once(state, eval_mode):
    # A ReLU's output is saved by the ReLU and by the next Linear: one tensor, counted once.
    run = run_with(state, eval_mode=eval_mode, batch=64)
    state.model.train(not eval_mode)
    output = state.model(state.inputs(64))
    fixed = [*state.model.parameters(), *state.model.buffers()]
    assert run.saved_bytes == saved_storages(output, fixed) > 0


# ---------------------------------------------------------------------- the guide


def test_guide_starts_at_step_one(state):
    guide = state.guide
    assert guide.heading == "Step 1 of 5" and guide.index == 0 and not guide.finished
    assert guide.note == ""
    assert "run forward pass" in guide.prompt


def test_guide_walks_every_step(state):
    guide = state.guide
    first = run_with(state, batch=256)
    assert guide.heading == "Step 2 of 5"
    assert guide.note.startswith("✓ Step 1 done.")
    assert "`output.grad_fn = AddmmBackward0`" in guide.note
    assert f"{first.saved_bytes / 1e6:.2f} MB" in guide.note and "batch of 256" in guide.note
    assert "torch.no_grad()" in guide.prompt

    run_with(state, no_grad=True, batch=256)
    assert guide.heading == "Step 3 of 5"
    assert "`output.grad_fn = None` and 0.00 MB saved" in guide.note
    assert f"The tracked run at batch 256 saved {first.saved_bytes / 1e6:.2f} MB" in guide.note
    assert " ms" not in guide.note  # times of two single runs are too noisy to compare
    assert "dropout was active" in guide.note
    assert "1024 or more" in guide.prompt

    big = run_with(state, batch=1024)
    assert guide.heading == "Step 4 of 5"
    ratio = big.saved_bytes / first.saved_bytes
    assert 3.5 < ratio <= 4.0
    assert f"That is {ratio:.1f} times the {first.saved_bytes / 1e6:.2f} MB of batch 256" in guide.note

    eval_only = run_with(state, eval_mode=True, batch=1024)
    assert guide.heading == "Step 5 of 5"
    assert "(difference 0)" in guide.note
    assert f"{eval_only.saved_bytes / 1e6:.2f} MB saved: `eval()` did not stop the graph" in guide.note
    assert eval_only.saved_bytes < big.saved_bytes  # eval mode: no dropout mask, no batch statistics saved
    assert "less than in train mode" in guide.note

    run_with(state, eval_mode=True, no_grad=True)
    assert guide.finished and guide.heading == "Finished"
    assert "`model.eval()` with `torch.no_grad()` is the recipe" in guide.note
    assert "restart the guide" in guide.prompt
    run_with(state)  # runs after the end change nothing
    assert guide.finished and guide.note == ""  # its numbers were of the run before


def test_wrong_run_keeps_guide_place(state):
    run_with(state, no_grad=True)  # step 1 asks for tracking on
    run_with(state, eval_mode=True)  # ... in train mode
    assert state.guide.index == 0
    assert state.guide.note == "That was not this step's action: this step asks you to run with every switch off."
    run_with(state)
    run_with(state, inference_mode=True)  # step 2 asks for no_grad() itself
    assert state.guide.index == 1


def test_big_batch_step_needs_tracking(state):
    state.guide.index = 2
    run_with(state, no_grad=True, batch=2048)
    run_with(state, batch=1016)
    assert state.guide.index == 2
    run_with(state, batch=2048)
    assert state.guide.index == 3
    # 1016 was the last smaller tracked train-mode run: the comparison uses it.
    assert "of batch 1016" in state.guide.note


def test_last_step_takes_inference_mode(state):
    state.guide.index = 4
    run_with(state, inference_mode=True)  # not in eval mode: not yet
    assert state.guide.index == 4
    run_with(state, inference_mode=True, eval_mode=True)
    assert state.guide.finished
    assert "`model.eval()` with `torch.inference_mode()`" in state.guide.note


def test_skip_and_restart(state):
    guide = state.guide
    guide.skip()
    assert guide.heading == "Step 2 of 5" and guide.note == "Step 1 skipped."
    for _ in range(10):
        guide.skip()
    assert guide.finished and guide.index == 5
    guide.restart()
    assert guide.index == 0 and guide.note == ""


def test_reset_keeps_guide_place(state):
    run_with(state)
    state.reset()
    assert state.guide.index == 1
    run_with(state, no_grad=True)
    assert state.guide.index == 2
    assert "The tracked run" not in state.guide.note  # its runs were forgotten


def test_custom_guide_steps():
    step = GuideStep("Run once.", lambda run, runs: True, lambda run, runs: f"run {run.index} of {len(runs)}")
    state = InferenceExplorerState(in_features=4, hidden=4, repeats=1)
    state.guide = Guide([step])
    state.run()
    assert state.guide.finished and state.guide.note == "✓ Step 1 done. run 1 of 1"
    with pytest.raises(ValueError, match="at least one step"):
        Guide([])
