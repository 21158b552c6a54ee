"""Every button of lesson 3's gradient explorer, clicked in JupyterLab in a real browser, writes the log line
and status it should and draws a new plot.
A screenshot of the explorer, after its controls were used, is kept in test-artifacts/browser/<assignment>.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.explorers import button, html_part, open_explorer
from tests.browser.lab import expect_new_image, img_src, kernel_log_count, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_gradient_explorer_buttons_update_the_plot_and_log(lab):
    cell, widget = open_explorer(lab, "lesson3_zeroing_grad", "GradExplorer")
    plot = widget.locator(".widget-output")
    status = html_part(widget, "backward() calls since the last clear")
    log = html_part(widget, "(newest first)").locator("pre")
    first_src = src = img_src(plot)

    expect(status).to_contain_text("w.grad = None")
    expect(status).to_contain_text("w = 0.0")
    expect(status).to_contain_text("loss = 4.0")
    expect(log).to_have_text(re.compile(r"^\s*0\. start\s+start: w = 0.0 and w.grad is None"))

    # (button, the newest log line it writes, what the status line then shows); loss = 4 (w - 1)²,
    # d loss / dw = 8 (w - 1), lr = 0.05.
    clicks = [
        ("loss.backward()", "1. loss.backward()", "backward() stored -8.0 in w.grad", "w.grad = -8.0"),
        (
            "loss.backward()",
            "2. loss.backward()",
            "backward() added -8.0 to w.grad: it was -8.0, now -16.0 (accumulated)",
            "w.grad = -16.0",
        ),
        (
            "optimizer.step()",
            "3. optimizer.step()",
            "step() moved w from 0.0 to 0.8 (w -= lr * w.grad, with lr = 0.05 and w.grad = -16.0)",
            "w = 0.8",
        ),
        (
            "optimizer.zero_grad()",
            "4. optimizer.zero_grad()",
            "zero_grad() replaced w.grad (-16.0) with None, so its default here is set_to_none=True",
            "w.grad = None",
        ),
        ("loss.backward()", "5. loss.backward()", "backward() stored -1.6 in w.grad", "w.grad = -1.6"),
        (
            "zero_grad(set_to_none=False)",
            "6. optimizer.zero_grad(set_to_none=False)",
            "zero_grad(set_to_none=False) filled w.grad with 0.0 (it was -1.6)",
            "w.grad = 0.0",
        ),
        # Adding to a gradient of 0.0 is not flagged as accumulated: nothing stale was there.
        (
            "loss.backward()",
            "7. loss.backward()",
            "backward() added -1.6 to w.grad: it was 0.0, now -1.6",
            "w.grad = -1.6",
        ),
        (
            "zero_grad(set_to_none=True)",
            "8. optimizer.zero_grad(set_to_none=True)",
            "zero_grad(set_to_none=True) replaced w.grad (-1.6) with None",
            "w.grad = None",
        ),
        ("loss.backward()", "9. loss.backward()", "backward() stored -1.6 in w.grad", "w.grad = -1.6"),
        (
            "w.grad = None",
            "10. w.grad = None",
            "w.grad = None dropped the gradient tensor (-1.6); w.grad is now None",
            "w.grad = None",
        ),
    ]
    for name, numbered, note, shown in clicks:
        button(widget, name).click()
        newest = re.compile(r"^\s*" + re.escape(numbered) + r"\s+" + re.escape(note))
        expect(log).to_have_text(newest)
        expect(status).to_contain_text(shown)
        src = expect_new_image(plot, src)
    expect(status).to_contain_text("loss = 0.16")
    expect(status).to_contain_text("backward() calls since the last clear: 0")
    assert len(log.inner_text().strip().splitlines()) == len(clicks) + 1
    screenshot(cell, "lesson3_zeroing_grad")

    button(widget, "reset (start over)").click()
    expect(log).to_have_text(re.compile(r"^\s*0\. start\s+start: w = 0.0 and w.grad is None[^\n]*\s*$"))
    expect(status).to_contain_text("w.grad = None")
    expect(status).to_contain_text("w = 0.0")
    assert expect_new_image(plot, src) == first_src, "reset should draw the starting picture again"
    assert kernel_log_count(lab.page) == 0, "a widget callback wrote to the log console (an exception?)"
    lab.assert_no_javascript_errors()
