"""Every control of lesson 2's tangent explorer, operated in JupyterLab in a real browser, redraws the tangent
and updates the slopes the way it should.
A screenshot of the explorer, after its controls were used, is kept in test-artifacts/browser/<assignment>.png."""

from __future__ import annotations

import math

import pytest
from playwright.sync_api import Locator, expect

from gradlessons.formatting import format_value
from tests.browser.explorers import assert_fits_a_laptop, button, dropdown, html_part, open_explorer
from tests.browser.lab import drag_slider, expect_new_image, img_src, kernel_log_count, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_controls_redraw_the_tangent(lab):
    cell, widget = open_explorer(lab, "lesson2_backward", "TangentExplorer")
    plot = widget.locator(".widget-output")
    status = html_part(widget, "finite difference")
    menu = dropdown(widget, "f(x) =")
    slider = widget.locator(".widget-slider")
    readout = slider.locator(".widget-readout")
    first_src = src = img_src(plot)

    expect(menu).to_have_value("x²")
    expect(readout).to_have_text("1.00")
    expect(status).to_contain_text("slope from backward(): 2.0")
    expect(status).to_contain_text("t.grad now: 2.0")
    expect(status).to_contain_text("backward() calls: 1")

    # backward() again without clearing: t.grad holds 2, then 3 times the slope.
    again = button(widget, "backward() again without clearing")
    again.click()
    expect(status).to_contain_text("t.grad now: 4.0")
    expect(status).to_contain_text("backward() calls: 2")
    expect(status).to_contain_text("After 2 backward() calls without clearing, t.grad holds 4.0 = 2 × the slope")
    src = expect_new_image(plot, src)
    again.click()
    expect(status).to_contain_text("t.grad now: 6.0")
    expect(status).to_contain_text("backward() calls: 3")
    src = expect_new_image(plot, src)

    # The slider moves x: a fresh leaf, one backward(), slope 2x for x².
    drag_slider(slider, 0.85)
    expect(readout).not_to_have_text("1.00")
    x = float(readout.inner_text())
    assert 1.0 < x <= 2.5
    expect(status).to_contain_text(f"f(x) = x² at x = {format_value(round(x, 4))}: backward() gives slope")
    expect(status).to_contain_text(f"slope from backward(): {format_value(2 * x)}")
    expect(status).to_contain_text("backward() calls: 1")
    src = expect_new_image(plot, src)

    # The menu changes the function: the slope of sin at x is cos(x).
    menu.select_option("sin x")
    expect(status).to_contain_text(f"f(x) = sin x at x = {format_value(round(x, 4))}")
    expect(status).to_contain_text(f"slope from backward(): {format_value(math.cos(x))}")
    src = expect_new_image(plot, src)
    again.click()
    expect(status).to_contain_text(f"t.grad now: {format_value(2 * math.cos(x))}")
    src = expect_new_image(plot, src)
    screenshot(cell, "lesson2_backward")

    button(widget, "reset").click()
    expect(menu).to_have_value("x²")
    expect(readout).to_have_text("1.00")
    expect(status).to_contain_text("slope from backward(): 2.0")
    expect(status).to_contain_text("backward() calls: 1")
    assert expect_new_image(plot, src) == first_src, "reset should draw the starting picture again"
    assert kernel_log_count(lab.page) == 0, "a widget callback wrote to the log console (an exception?)"
    lab.assert_no_javascript_errors()


def type_x(slider: Locator, value: float) -> None:
    """Set the x slider exactly, as a student can: type the value into its readout and press Enter."""
    readout = slider.locator(".widget-readout")
    readout.click()
    readout.press("ControlOrMeta+a")
    readout.type(f"{value:.2f}")
    readout.press("Enter")
    expect(readout).to_have_text(f"{value:.2f}".replace("-", "\u2212"))  # the readout shows a real minus sign


def test_guide_steps_skip_and_restart(lab):
    cell, widget = open_explorer(lab, "lesson2_backward", "TangentExplorer")
    assert_fits_a_laptop(lab, widget, "lesson2_backward")  # as it opens, before any step
    guide = widget.locator(".tangent-guide")
    status = html_part(widget, "t.grad now:")
    menu = dropdown(widget, "f(x) =")
    slider = widget.locator(".widget-slider")
    again = button(widget, "backward() again without clearing")
    plot = widget.locator(".widget-output")
    src = img_src(plot)

    expect(guide).to_contain_text(
        "Step 1 of 4: With f(x) = x², move the x slider (or type a number into its box) until"
    )
    screenshot(cell, "lesson2_backward-guide-1")

    type_x(slider, 0.0)
    src = expect_new_image(plot, src)
    expect(guide).to_contain_text("Step 1 done. At x = 0, backward() gives slope 0.0: the bottom of the parabola")
    expect(guide).to_contain_text("Step 2 of 4: Choose x³ − 2x in the menu")
    screenshot(cell, "lesson2_backward-guide-2")

    menu.select_option("x³ − 2x")
    expect(status).to_contain_text("slope from backward(): -2.0")
    src = expect_new_image(plot, src)
    type_x(slider, 0.8)
    src = expect_new_image(plot, src)
    expect(guide).to_contain_text("Step 2 done. At x = 0.80, backward() gives slope -0.08")
    expect(guide).to_contain_text("Step 3 of 4: Choose the ReLU-ish function")
    screenshot(cell, "lesson2_backward-guide-3")

    menu.select_option("ReLU-ish: max(0, x) + 0.2·x")
    expect(status).to_contain_text("slope from backward(): 1.2")
    src = expect_new_image(plot, src)
    type_x(slider, -1.0)
    expect(status).to_contain_text("slope from backward(): 0.2")
    src = expect_new_image(plot, src)
    type_x(slider, 0.0)
    src = expect_new_image(plot, src)
    expect(guide).to_contain_text("Exactly at the kink, backward() gives 0.2")
    expect(guide).to_contain_text("averages the two sides: 0.7000")
    expect(guide).to_contain_text("Step 4 of 4: Click “backward() again without clearing” three times")
    screenshot(cell, "lesson2_backward-guide-4")

    for calls in (2, 3, 4):
        again.click()
        expect(status).to_contain_text(f"backward() calls: {calls}")
        src = expect_new_image(plot, src)
    expect(guide).to_contain_text("Step 4 done. t.grad now holds 0.8 = 4 × the slope 0.2")
    expect(guide).to_contain_text("Guide · Finished:")
    expect(button(widget, "skip step")).to_be_disabled()
    screenshot(cell, "lesson2_backward-guide-5")
    assert_fits_a_laptop(lab, widget, "lesson2_backward-finished")  # a two-line summary, a red tangent

    # Restart: back to step 1 and to x² at x = 1; then skip a step, and the rest.
    button(widget, "restart guide").click()
    expect(guide).to_contain_text("Step 1 of 4")
    expect(menu).to_have_value("x²")
    expect(slider.locator(".widget-readout")).to_have_text("1.00")
    expect(status).to_contain_text("backward() calls: 1")
    button(widget, "skip step").click()
    expect(guide).to_contain_text("Step 2 of 4")
    expect(guide).not_to_contain_text("done")
    for _ in range(3):
        button(widget, "skip step").click()
    expect(guide).to_contain_text("Guide · Finished:")
    expect(button(widget, "skip step")).to_be_disabled()
    again.click()  # the free controls keep working
    expect(status).to_contain_text("t.grad now: 4.0")
    assert kernel_log_count(lab.page) == 0, "a widget callback wrote to the log console (an exception?)"
    lab.assert_no_javascript_errors()
