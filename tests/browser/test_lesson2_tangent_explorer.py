"""Every control of lesson 2's tangent explorer, operated in JupyterLab in a real browser, redraws the tangent
and updates the slopes the way it should.
A screenshot of the explorer, after its controls were used, is kept in test-artifacts/browser/<assignment>.png."""

from __future__ import annotations

import math

import pytest
from playwright.sync_api import expect

from gradlessons.formatting import format_value
from tests.browser.explorers import button, dropdown, html_part, open_explorer
from tests.browser.lab import drag_slider, expect_new_image, img_src, kernel_log_count, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_tangent_explorer_slider_menu_and_buttons_redraw_the_tangent(lab):
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
