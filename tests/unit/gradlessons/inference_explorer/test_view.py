"""Tests of the lesson 4 explorer view, driven without a browser."""

import base64

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pytest

from gradlessons.inference_explorer import InferenceExplorer, InferenceExplorerState
from tests.unit.gradlessons.widget_helpers import PNG_SIGNATURE, beside_the_figure, descendants, legend_inside, text_of


@pytest.fixture
def explorer():
    return InferenceExplorer(InferenceExplorerState(in_features=16, hidden=32, repeats=1))


def images(output: widgets.Output) -> list[bytes]:
    return [
        base64.b64decode(item["data"]["image/png"])
        for item in output.outputs
        if item.get("output_type") == "display_data" and "image/png" in item["data"]
    ]


def test_controls_are_core_widgets(explorer):
    for box in (explorer.no_grad, explorer.inference_mode, explorer.eval_mode):
        assert isinstance(box, widgets.Checkbox) and box.value is False
    assert isinstance(explorer.batch_size, widgets.IntSlider)
    assert isinstance(explorer.run_button, widgets.Button)
    assert isinstance(explorer.reset_button, widgets.Button)
    assert explorer.plot_output in descendants(explorer.widget)


def test_opens_empty_and_invites_a_run(explorer):
    (png,) = images(explorer.plot_output)
    assert png.startswith(PNG_SIGNATURE)
    assert "No run yet" in text_of(explorer.status.value)


def test_tracked_run_shows_grad_fn(explorer, capsys):
    before = images(explorer.plot_output)[0]
    explorer.run_button.click()
    status = text_of(explorer.status.value)
    assert "output.requires_grad = True" in status
    assert "output.grad_fn = AddmmBackward0" in status
    assert "dropout active" in status
    assert "1. batch  256" in text_of(explorer.log.value)
    (after,) = images(explorer.plot_output)
    assert after != before
    assert capsys.readouterr() == ("", "")


def test_checkboxes_change_next_run(explorer):
    explorer.no_grad.value = True
    explorer.run_button.click()
    assert "output.grad_fn = None" in text_of(explorer.status.value)
    assert "saved for backward: 0.00 MB" in text_of(explorer.status.value)
    explorer.no_grad.value = False
    explorer.inference_mode.value = True
    explorer.run_button.click()
    assert "torch.inference_mode()" in text_of(explorer.status.value)
    assert "output.requires_grad = False" in text_of(explorer.status.value)
    explorer.inference_mode.value = False
    explorer.eval_mode.value = True
    explorer.run_button.click()
    status = text_of(explorer.status.value)
    assert "model.eval()" in status and "output.requires_grad = True" in status
    assert "dropout off" in status


def test_slider_sets_next_batch_size(explorer):
    explorer.batch_size.value = 64
    explorer.run_button.click()
    explorer.batch_size.value = 512
    explorer.run_button.click()
    assert [r.batch_size for r in explorer.state.history] == [64, 512]
    assert explorer.state.history[1].saved_bytes > 6 * explorer.state.history[0].saved_bytes
    assert "batch 512" in text_of(explorer.status.value)


def test_each_run_replaces_figure(explorer):
    seen = [images(explorer.plot_output)[0]]
    for _ in range(3):
        explorer.run_button.click()
        (png,) = images(explorer.plot_output)
        assert png not in seen
        seen.append(png)


def test_reset_clears_runs_and_switches(explorer):
    explorer.no_grad.value = True
    explorer.eval_mode.value = True
    explorer.batch_size.value = 1024
    explorer.run_button.click()
    explorer.reset_button.click()
    assert explorer.state.history == ()
    assert (explorer.no_grad.value, explorer.eval_mode.value, explorer.batch_size.value) == (False, False, 256)
    assert (explorer.state.no_grad, explorer.state.eval_mode) == (False, False)
    assert "No run yet" in text_of(explorer.status.value)


def test_many_runs_leak_no_figure(explorer):
    open_before = set(plt.get_fignums())
    for _ in range(4):  # one figure kept per run would show after the first
        explorer.run_button.click()
    assert images(explorer.plot_output)[0].startswith(PNG_SIGNATURE)
    assert set(plt.get_fignums()) == open_before


def test_display_shows_its_widget(explorer, monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda *objs, **kw: shown.extend(objs))
    explorer._ipython_display_()
    assert shown == [explorer.widget]


def test_guide_shows_step_one_buttons(explorer):
    text = text_of(explorer.guide.value)
    assert text.startswith("Guide · Step 1 of 5: Leave every switch off")
    assert "<b>run forward pass</b>" in explorer.guide.value
    assert isinstance(explorer.guide_buttons["skip"], widgets.Button) and not explorer.guide_buttons["skip"].disabled
    assert isinstance(explorer.guide_buttons["restart"], widgets.Button)
    assert beside_the_figure(explorer)


def test_controls_walk_the_guide(explorer):
    explorer.run_button.click()
    text = text_of(explorer.guide.value)
    assert "✓ Step 1 done. output.grad_fn = AddmmBackward0: PyTorch recorded a graph" in text
    assert "Guide · Step 2 of 5: Tick with torch.no_grad()" in text
    assert "<code>with torch.no_grad()</code>" in explorer.guide.value

    explorer.no_grad.value = True
    explorer.run_button.click()
    assert "Step 2 done. output.grad_fn = None and 0.00 MB saved" in text_of(explorer.guide.value)

    explorer.no_grad.value = False
    explorer.batch_size.value = 1024
    explorer.run_button.click()
    assert "Step 3 done. Batch 1024:" in text_of(explorer.guide.value)

    explorer.eval_mode.value = True
    explorer.run_button.click()
    assert "eval() did not stop the graph" in text_of(explorer.guide.value)

    explorer.no_grad.value = True
    explorer.run_button.click()
    text = text_of(explorer.guide.value)
    assert "Step 5 done." in text and "model.eval() with torch.no_grad() is the recipe for inference" in text
    assert "Guide · Finished: You have seen the whole lesson in action." in text
    assert explorer.guide_buttons["skip"].disabled


def test_skip_and_restart_buttons(explorer):
    explorer.guide_buttons["skip"].click()
    text = text_of(explorer.guide.value)
    assert "Step 1 skipped." in text and "Step 2 of 5" in text
    assert explorer.state.history == ()  # skipping runs nothing
    explorer.guide_buttons["restart"].click()
    assert text_of(explorer.guide.value).startswith("Guide · Step 1 of 5")


def test_reset_keeps_guide_place(explorer):
    explorer.run_button.click()
    explorer.reset_button.click()
    assert "Step 2 of 5" in text_of(explorer.guide.value)


def test_escapes_all_but_code_and_bold():
    from gradlessons.guide import Guide, GuideStep
    from gradlessons.guide_view import guide_html

    value = guide_html(Guide([GuideStep("Run `a<b` **now** & <script>", lambda: False, "")]))
    assert "<code>a&lt;b</code>" in value and "<b>now</b>" in value
    assert "&amp; &lt;script&gt;" in value and "<script>" not in value


def test_runs_that_saved_nothing_are_drawn_whole_above_the_axis(explorer):
    from gradlessons.inference_explorer.view import draw_runs

    explorer.state.run()
    explorer.state.no_grad = True
    explorer.state.run()  # saves 0 MB: its marker sits at the bottom of the memory plot
    assert explorer.state.history[-1].saved_bytes == 0
    fig = draw_runs(explorer.state.history)
    memory, time = fig.axes[:2]
    for ax, values in (
        (memory, [r.saved_bytes / 1e6 for r in explorer.state.history]),
        (time, [r.seconds * 1e3 for r in explorer.state.history]),
    ):
        bottom, top = ax.get_ylim()
        span = top - bottom
        assert bottom < min(values) - 0.05 * span and max(values) + 0.05 * span < top
        assert min(ax.get_yticks()) >= 0.0  # no tick below 0 MB or 0 ms
        left, right = ax.get_xlim()
        assert left < 1 - 0.3 and right > len(values) + 0.3
    assert legend_inside(fig)  # beside the guide, the figure is narrower than the legend's five entries
    fig.clear()
