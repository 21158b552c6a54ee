"""Tests of the ipywidgets view, driven without a browser by ``button.click()``."""

import base64
import html

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pytest

from gradlessons.gradient_explorer import GradExplorer, GradExplorerState
from gradlessons.gradient_explorer.state import ACTIONS
from gradlessons.gradient_explorer.view import MAX_NAMED_TICKS
from tests.unit.gradlessons.widget_helpers import PNG_SIGNATURE, beside_the_figure, descendants, legend_inside, text_of


@pytest.fixture
def explorer():
    return GradExplorer()


def log_lines(explorer: GradExplorer) -> list[str]:
    """The lines inside the log's <pre> block, newest first."""
    body = explorer.log.value.split("<pre", 1)[1].split(">", 1)[1].rsplit("</pre>", 1)[0]
    return html.unescape(body).splitlines()


def images(output: widgets.Output) -> list[bytes]:
    """The PNG images currently held by an Output widget."""
    found = []
    for item in output.outputs:
        if item.get("output_type") == "display_data" and "image/png" in item["data"]:
            found.append(base64.b64decode(item["data"]["image/png"]))
    return found


def test_tooltips_hold_the_code(explorer):
    assert set(explorer.buttons) == set(ACTIONS)
    for name, button in explorer.buttons.items():
        assert isinstance(button, widgets.Button)
        assert button.description
        assert ACTIONS[name] in button.tooltip or name == "reset"
    assert explorer.buttons["backward"].description == "loss.backward()"
    assert explorer.buttons["grad_to_none"].description == "w.grad = None"


def test_public_widgets_exposed(explorer):
    assert isinstance(explorer.widget, widgets.VBox)
    assert isinstance(explorer.plot_output, widgets.Output)
    assert isinstance(explorer.status, widgets.HTML)
    assert isinstance(explorer.log, widgets.HTML)
    shown = descendants(explorer.widget)
    assert shown.index(explorer.status) < shown.index(explorer.plot_output) < shown.index(explorer.log)


def test_opens_on_grad_none(explorer):
    status = text_of(explorer.status.value)
    assert "w.grad = None" in status
    assert "w = 0.0" in status
    assert "0. start" in text_of(explorer.log.value)
    (png,) = images(explorer.plot_output)
    assert png.startswith(PNG_SIGNATURE)


def test_backward_updates_log_plot(explorer):
    (before,) = images(explorer.plot_output)
    explorer.buttons["backward"].click()
    status = text_of(explorer.status.value)
    assert "w.grad = -8.0" in status
    assert "backward() calls since the last clear: 1" in status
    log = text_of(explorer.log.value)
    assert "1. loss.backward()" in log
    assert "stored -8.0 in w.grad" in log
    (after,) = images(explorer.plot_output)
    assert after.startswith(PNG_SIGNATURE)
    assert after != before


# (button, text expected in the status line afterwards, text expected in the newest log line)
CLICK_SEQUENCE = [
    ("backward", "w.grad = -8.0", "loss.backward()"),
    ("backward", "w.grad = -16.0", "(accumulated)"),
    ("step", "w = 0.8", "moved w from 0.0 to 0.8"),
    ("zero_grad", "w.grad = None", "optimizer.zero_grad()"),
    ("backward", "w.grad = -1.6", "stored -1.6"),
    ("zero_grad_fill_zeros", "w.grad = 0.0", "filled w.grad with 0.0"),
    ("step", "w = 0.8", "w.grad = 0.0, so w stayed at 0.8"),
    ("backward", "w.grad = -1.6", "it was 0.0, now -1.6"),
    ("zero_grad_set_to_none", "w.grad = None", "optimizer.zero_grad(set_to_none=True)"),
    ("backward", "w.grad = -1.6", "stored -1.6"),
    ("grad_to_none", "w.grad = None", "dropped the gradient tensor"),
    ("step", "w = 0.8", "saw w.grad = None and left w unchanged"),
    ("reset", "w.grad = None", "0. start"),
]


def test_each_button_changes_view(explorer, capsys):
    previous_image = images(explorer.plot_output)[0]
    for number, (name, status_text, log_text) in enumerate(CLICK_SEQUENCE, start=1):
        explorer.buttons[name].click()
        status = text_of(explorer.status.value)
        newest = log_lines(explorer)[0]
        assert status_text in status, name
        assert log_text in newest, name
        if name != "reset":
            assert newest.lstrip().startswith(f"{number}. {ACTIONS[name]}"), name
        image_outputs = images(explorer.plot_output)
        assert len(image_outputs) == 1, "the old figure must be replaced, not appended to"
        assert image_outputs[0] != previous_image, name
        previous_image = image_outputs[0]
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out == ""


def test_reset_leaves_start_line(explorer):
    for name in ["backward", "backward", "step", "reset"]:
        explorer.buttons[name].click()
    log = text_of(explorer.log.value)
    assert "0. start" in log
    assert "loss.backward()" not in log
    assert "w = 0.0" in text_of(explorer.status.value)


def test_no_figure_left_in_pyplot(explorer):
    open_before = set(plt.get_fignums())
    for name in ACTIONS:
        explorer.buttons[name].click()
    assert set(plt.get_fignums()) == open_before


def test_long_history_still_plots(explorer):
    # One more record than can carry named ticks: the plot switches to plain numbers.
    for _ in range(MAX_NAMED_TICKS):
        explorer.state.backward()
    explorer.buttons["zero_grad_fill_zeros"].click()
    assert len(explorer.state.history) > MAX_NAMED_TICKS
    assert images(explorer.plot_output)[0].startswith(PNG_SIGNATURE)


def test_shares_a_python_driven_state():
    state = GradExplorerState()
    explorer = GradExplorer(state)
    assert explorer.state is state
    state.backward()
    state.backward()
    explorer.refresh()
    assert "w.grad = -16.0" in text_of(explorer.status.value)
    assert "2. loss.backward()" in text_of(explorer.log.value)


def test_displays_top_level_widget(explorer, monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda *objs, **kw: shown.extend(objs))
    explorer._ipython_display_()
    assert shown == [explorer.widget]


def test_log_text_html_escaped(explorer):
    # The notes contain no markup, but the view must not trust that: "<" would break the <pre>.
    explorer.buttons["backward"].click()
    assert "<pre" in explorer.log.value
    body = explorer.log.value.split("<pre", 1)[1].split(">", 1)[1].rsplit("</pre>", 1)[0]
    assert "<" not in body


# ---------------------------------------------------------------------- the guide

# (button, the guide's heading afterwards, text of what to look at)
GUIDE_CLICKS = [
    ("backward", "Step 1 of 6", None),
    ("backward", "Step 1 of 6", None),
    ("backward", "Step 2 of 6", "w.grad is -24.0: 3 times -8.0"),
    ("step", "Step 3 of 6", "step() moved w from 0.0 to 1.2"),
    ("zero_grad", "Step 4 of 6", "w.grad is None"),
    ("backward", "Step 5 of 6", "w.grad is 1.6"),
    ("step", "Step 6 of 6", "w moved from 1.2 to 1.12"),
    ("zero_grad_fill_zeros", "Guide · Finished", "w.grad is 0.0"),
]


def test_guide_beside_the_figure(explorer):
    assert isinstance(explorer.guide, widgets.HTML)
    assert beside_the_figure(explorer)  # as tall as the figure: no button moves as the text changes
    text = text_of(explorer.guide.value)
    assert "Guide · Step 1 of 6: Click loss.backward() three times" in text
    assert "<code>loss.backward()</code>" in explorer.guide.value
    assert "✓" not in text
    assert explorer.guide_buttons["restart"].description == "restart guide"
    assert explorer.guide_buttons["skip"].description == "skip step"
    assert not explorer.guide_buttons["skip"].disabled


def test_clicks_show_each_guide_step(explorer):
    for name, heading, look in GUIDE_CLICKS:
        explorer.buttons[name].click()
        text = text_of(explorer.guide.value)
        assert heading in text, name
        if look is None:
            assert "✓" not in text, name
        else:
            assert "✓ Step" in text and look in text, name
    assert explorer.guide_buttons["skip"].disabled


def test_skip_then_restart_guide(explorer):
    explorer.buttons["backward"].click()
    explorer.guide_buttons["skip"].click()
    assert "Guide · Step 2 of 6" in text_of(explorer.guide.value)
    assert "Step 1 skipped." in text_of(explorer.guide.value)
    explorer.buttons["backward"].click()
    explorer.buttons["backward"].click()
    assert "That was not this step's action" in text_of(explorer.guide.value)
    assert "w.grad = -24.0" in text_of(explorer.status.value)

    explorer.guide_buttons["restart"].click()
    assert "Step 1 of 6" in text_of(explorer.guide.value)
    assert "w.grad = None" in text_of(explorer.status.value)
    assert log_lines(explorer) == [log_lines(explorer)[0]]
    assert not explorer.guide_buttons["skip"].disabled


def test_guide_text_html_escaped():
    from gradlessons.guide_view import inline

    assert inline("a <b> `x < y`") == "a &lt;b&gt; <code>x &lt; y</code>"


def test_the_legend_fits_inside_the_figure_beside_the_guide(explorer):
    from gradlessons.gradient_explorer.view import draw_history

    explorer.buttons["backward"].click()
    fig = draw_history(explorer.state.history)
    assert legend_inside(fig)
    fig.clear()
