"""Every switch, the slider and the buttons of lesson 4's inference explorer, operated in JupyterLab in a real
browser, record each run the way they should.
A screenshot of the explorer, after its controls were used, is kept in test-artifacts/browser/<assignment>.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.explorers import button, checkbox, html_part, open_explorer
from tests.browser.lab import drag_slider, expect_new_image, img_src, kernel_log_count, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_inference_explorer_switches_slider_and_buttons_record_each_run(lab):
    cell, widget = open_explorer(lab, "lesson4_no_grad", "InferenceExplorer")
    plot = widget.locator(".widget-output")
    status = widget.locator(".widget-html").nth(1)
    log = html_part(widget, "(newest first)").locator("pre")
    slider = widget.locator(".widget-slider")
    readout = slider.locator(".widget-readout")
    run = button(widget, "run forward pass")
    first_src = src = img_src(plot)

    expect(status).to_have_text("No run yet: choose the switches and a batch size, then click run forward pass.")
    expect(log).to_have_text("")
    expect(readout).to_have_text("256")

    def saved_megabytes() -> float:
        found = re.search(r"saved for backward: ([\d.]+) MB", status.inner_text())
        assert found, status.inner_text()
        return float(found.group(1))

    # Tracking on, train mode: a graph with saved activations, dropout active.
    run.click()
    expect(status).to_contain_text("model.train(), batch 256")
    expect(status).to_contain_text("output.requires_grad = True")
    expect(status).to_contain_text("output.grad_fn = AddmmBackward0")
    expect(status).to_contain_text("dropout active (train mode)")
    assert saved_megabytes() > 0
    expect(log).to_have_text(re.compile(r"^\s*1\. batch  256  model\.train\(\) .*requires_grad=True "))
    src = expect_new_image(plot, src)

    checkbox(widget, "with torch.no_grad()").check()
    run.click()
    expect(status).to_contain_text("model.train() + torch.no_grad(), batch 256")
    expect(status).to_contain_text("output.requires_grad = False")
    expect(status).to_contain_text("output.grad_fn = None")
    assert saved_megabytes() == 0
    expect(log).to_have_text(re.compile(r"^\s*2\. batch  256  model.train\(\) \+ torch.no_grad\(\) "))
    src = expect_new_image(plot, src)

    checkbox(widget, "model.eval()").check()
    run.click()
    expect(status).to_contain_text("model.eval() + torch.no_grad(), batch 256")
    expect(status).to_contain_text("dropout off (eval mode); largest difference from the eval output: 0")
    src = expect_new_image(plot, src)

    checkbox(widget, "with torch.no_grad()").uncheck()
    checkbox(widget, "with torch.inference_mode()").check()
    drag_slider(slider, 0.1)
    expect(readout).not_to_have_text("256")
    batch = int(readout.inner_text())
    assert 8 <= batch < 256 and batch % 8 == 0
    run.click()
    expect(status).to_contain_text(f"model.eval() + torch.inference_mode(), batch {batch}")
    expect(status).to_contain_text("output.requires_grad = False")
    expect(log).to_have_text(re.compile(rf"^\s*4\. batch {batch:>4}  model.eval\(\) \+ torch.inference_mode\(\) "))
    src = expect_new_image(plot, src)
    assert len(log.inner_text().strip().splitlines()) == 4
    screenshot(cell, "lesson4_no_grad")

    button(widget, "reset").click()
    expect(status).to_contain_text("No run yet")
    expect(log).to_have_text("")
    expect(readout).to_have_text("256")
    for name in ("with torch.no_grad()", "with torch.inference_mode()", "model.eval()"):
        expect(checkbox(widget, name)).not_to_be_checked()
    assert expect_new_image(plot, src) == first_src, "reset should draw the empty plot again"
    assert kernel_log_count(lab.page) == 0, "a widget callback wrote to the log console (an exception?)"
    lab.assert_no_javascript_errors()
