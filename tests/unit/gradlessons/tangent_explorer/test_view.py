"""Tests of the tangent explorer's ipywidgets view, driven without a browser."""

import base64

import ipywidgets as widgets
import pytest

from gradlessons.tangent_explorer import FUNCTIONS, TangentExplorer
from tests.unit.gradlessons.widget_helpers import PNG_SIGNATURE, beside_the_figure, text_of


@pytest.fixture
def explorer():
    return TangentExplorer()


def image(explorer) -> bytes:
    (item,) = explorer.plot_output.outputs
    png = base64.b64decode(item["data"]["image/png"])
    assert png.startswith(PNG_SIGNATURE)
    return png


def test_dropdown_slider_two_buttons(explorer):
    assert isinstance(explorer.function_menu, widgets.Dropdown)
    assert [value for _, value in explorer.function_menu.options] == list(FUNCTIONS)
    assert isinstance(explorer.x_slider, widgets.FloatSlider)
    assert explorer.again_button.description == "backward() again without clearing"
    assert explorer.reset_button.description == "reset"
    assert isinstance(explorer.widget, widgets.VBox)


def test_opens_on_x_squared_at_one(explorer):
    status = text_of(explorer.status.value)
    assert "slope from backward(): 2.0" in status
    assert "finite difference: 2.0000" in status
    assert "backward() calls: 1" in status
    image(explorer)


def test_choosing_function_redraws(explorer):
    before = image(explorer)
    explorer.function_menu.value = "cubic"
    assert "slope from backward(): 1.0" in text_of(explorer.status.value)  # 3·1² − 2
    assert image(explorer) != before


def test_slider_recomputes_slope(explorer):
    before = image(explorer)
    explorer.x_slider.value = -1.5
    status = text_of(explorer.status.value)
    assert "slope from backward(): -3.0" in status
    assert "finite difference: -3.0000" in status
    assert image(explorer) != before


def test_grad_doubles_then_triples(explorer, capsys):
    before = image(explorer)
    explorer.again_button.click()
    status = text_of(explorer.status.value)
    assert "t.grad now: 4.0" in status and "backward() calls: 2" in status
    assert "2 × the slope" in status
    after_two = image(explorer)
    assert after_two != before
    explorer.again_button.click()
    assert "t.grad now: 6.0" in text_of(explorer.status.value)
    assert image(explorer) != after_two
    assert capsys.readouterr() == ("", "")


def test_reset_restores_controls(explorer):
    explorer.function_menu.value = "sin"
    explorer.x_slider.value = 0.0
    explorer.again_button.click()
    explorer.reset_button.click()
    assert explorer.function_menu.value == "square"
    assert explorer.x_slider.value == 1.0
    status = text_of(explorer.status.value)
    assert "t.grad now: 2.0" in status and "backward() calls: 1" in status
    assert explorer.state.backward_calls == 1


def guide_text(explorer) -> str:
    return text_of(explorer.guide.value)


def test_guide_beside_the_figure_at_step_one(explorer):
    assert isinstance(explorer.guide, widgets.HTML)
    assert beside_the_figure(explorer)
    assert guide_text(explorer).startswith("Guide · Step 1 of 4: With f(x) = x², move the x slider")
    assert explorer.guide_buttons["skip"].description == "skip step"
    assert explorer.guide_buttons["restart"].description == "restart guide"


def test_controls_walk_the_guide(explorer, capsys):
    explorer.x_slider.value = 0.0
    text = guide_text(explorer)
    assert "✓ Step 1 done. At x = 0, backward() gives slope 0.0" in text
    assert "Step 2 of 4: Choose x³ − 2x" in text
    explorer.function_menu.value = "cubic"
    explorer.x_slider.value = -0.8
    assert "Step 2 done. At x = -0.80, backward() gives slope -0.08" in guide_text(explorer)
    explorer.function_menu.value = "relu_ish"
    explorer.x_slider.value = 0.5
    assert "Step 3 of 4" in guide_text(explorer)
    explorer.x_slider.value = 0.0
    assert "averages the two sides: 0.7000" in guide_text(explorer)
    for _ in range(3):
        explorer.again_button.click()
    text = guide_text(explorer)
    assert "Step 4 done. t.grad now holds 0.8 = 4 × the slope 0.2" in text
    assert "Guide · Finished:" in text
    assert explorer.guide_buttons["skip"].disabled
    assert capsys.readouterr() == ("", "")


def test_skip_and_restart_guide(explorer):
    explorer.guide_buttons["skip"].click()
    assert guide_text(explorer).startswith("Step 1 skipped.Guide · Step 2 of 4")
    for _ in range(3):
        explorer.guide_buttons["skip"].click()
    assert "Guide · Finished:" in guide_text(explorer)
    assert explorer.guide_buttons["skip"].disabled
    explorer.function_menu.value = "sin"
    explorer.x_slider.value = 0.0
    explorer.again_button.click()
    assert "t.grad now: 2.0" in text_of(explorer.status.value)  # the free controls still work
    before = image(explorer)
    explorer.guide_buttons["restart"].click()
    assert guide_text(explorer).startswith("Guide · Step 1 of 4")
    assert not explorer.guide_buttons["skip"].disabled
    assert (explorer.function_menu.value, explorer.x_slider.value) == ("square", 1.0)
    assert "backward() calls: 1" in text_of(explorer.status.value)
    assert image(explorer) != before
