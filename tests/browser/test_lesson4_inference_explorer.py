"""Lesson 4's inference explorer, operated in JupyterLab in a real browser: its guide is followed step by step
(each step's message checked against the run's own numbers), then skipped and restarted, and every switch, the
slider and the buttons record each run the way they should.
Screenshots: test-artifacts/browser/lesson4_no_grad-guide-<k>.png (the explorer at each step of the guide) and
test-artifacts/browser/lesson4_no_grad.png (after the free controls were used)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.explorers import assert_fits_a_laptop, button, checkbox, html_part, open_explorer
from tests.browser.lab import drag_slider, expect_new_image, img_src, kernel_log_count, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ASSIGNMENT = "lesson4_no_grad"


def test_guide_and_controls_work(lab):
    cell, widget = open_explorer(lab, ASSIGNMENT, "InferenceExplorer")
    assert_fits_a_laptop(lab, widget, ASSIGNMENT)  # as it opens, before any step
    plot = widget.locator(".widget-output")
    guide = html_part(widget, "Guide ·")
    status = widget.locator(".explorer-status")
    log = html_part(widget, "(newest first)").locator("pre")
    slider = widget.locator(".widget-slider")
    readout = slider.locator(".widget-readout")
    run = button(widget, "run forward pass")
    skip = button(widget, "skip step")
    first_src = src = img_src(plot)

    expect(status).to_have_text("No run yet: choose the switches and a batch size, then click run forward pass.")
    expect(log).to_have_text("")
    expect(readout).to_have_text("256")

    def saved_megabytes() -> str:
        found = re.search(r"saved for backward: ([\d.]+) MB", status.inner_text())
        assert found, status.inner_text()
        return found.group(1)

    def step(k: int, prompt: str) -> None:
        """The guide shows step k with its prompt; screenshot it."""
        expect(guide).to_contain_text(f"Guide · Step {k} of 5: {prompt}")
        screenshot(cell, f"{ASSIGNMENT}-guide-{k}")

    # ---- the guide, followed step by step
    expect(guide).to_have_text(
        "Guide · Step 1 of 5: Leave every switch off (tracking on, train mode) and click run forward pass."
    )
    screenshot(cell, f"{ASSIGNMENT}-guide-1")

    run.click()  # step 1: tracking on, train mode
    expect(status).to_contain_text("model.train(), batch 256")
    expect(status).to_contain_text("output.requires_grad = True")
    expect(status).to_contain_text("output.grad_fn = AddmmBackward0")
    expect(status).to_contain_text("dropout active (train mode)")
    tracked_mb = saved_megabytes()
    assert float(tracked_mb) > 0
    expect(guide).to_contain_text(
        "✓ Step 1 done. output.grad_fn = AddmmBackward0: PyTorch recorded a graph, and it keeps "
        f"{tracked_mb} MB of activations (the layers' intermediate results) alive for backward, for a batch of 256."
    )
    expect(log).to_have_text(re.compile(r"^\s*1\. batch  256  model\.train\(\) .*requires_grad=True "))
    src = expect_new_image(plot, src)
    step(2, "Tick with torch.no_grad() and run again with the same batch size.")

    checkbox(widget, "with torch.no_grad()").check()
    run.click()  # step 2: no_grad
    expect(status).to_contain_text("model.train() + torch.no_grad(), batch 256")
    expect(status).to_contain_text("output.requires_grad = False")
    expect(status).to_contain_text("output.grad_fn = None")
    expect(status).to_contain_text("saved for backward: 0.00 MB")
    expect(guide).to_contain_text(
        "✓ Step 2 done. output.grad_fn = None and 0.00 MB saved: under no_grad() nothing was recorded. "
        f"The tracked run at batch 256 saved {tracked_mb} MB."
    )
    expect(guide).to_contain_text("But the model was still in train mode: dropout was active")
    expect(log).to_have_text(re.compile(r"^\s*2\. batch  256  model.train\(\) \+ torch.no_grad\(\) "))
    src = expect_new_image(plot, src)
    step(3, "Untick torch.no_grad(), drag the batch size to 1024 or more and run.")

    checkbox(widget, "with torch.no_grad()").uncheck()
    drag_slider(slider, 0.75)
    expect(readout).not_to_have_text("256")
    big = int(readout.inner_text())
    assert 1024 <= big <= 2048 and big % 8 == 0, big
    run.click()  # step 3: a bigger batch, tracked
    expect(status).to_contain_text(f"model.train(), batch {big}")
    big_mb = saved_megabytes()
    ratio = float(big_mb) / float(tracked_mb)
    expect(guide).to_contain_text(f"✓ Step 3 done. Batch {big}: {big_mb} MB saved for backward. That is ")
    found = re.search(r"That is ([\d.]+) times", guide.inner_text())
    assert found and abs(float(found.group(1)) - ratio) < 0.1, (guide.inner_text(), ratio)
    assert abs(ratio - big / 256) < 0.5, (ratio, big)  # memory in proportion to the batch size
    src = expect_new_image(plot, src)
    step(4, "Now tick only model.eval() and run. Is a graph still built?")

    checkbox(widget, "model.eval()").check()
    run.click()  # step 4: eval() alone
    expect(status).to_contain_text(f"model.eval(), batch {big}")
    expect(status).to_contain_text("dropout off (eval mode); largest difference from the eval output: 0")
    eval_mb = saved_megabytes()
    expect(guide).to_contain_text(
        "✓ Step 4 done. Dropout is off: the output equals the eval-mode output (difference 0). "
        f"But output.grad_fn = AddmmBackward0 and {eval_mb} MB saved: eval() did not stop the graph. "
        "(That is less than in train mode: in eval mode dropout saves no random mask"
    )
    assert float(eval_mb) < float(big_mb)
    src = expect_new_image(plot, src)
    step(5, "Tick with torch.no_grad() as well (keep model.eval() ticked) and run.")

    checkbox(widget, "with torch.no_grad()").check()
    run.click()  # step 5: eval() + no_grad()
    expect(status).to_contain_text(f"model.eval() + torch.no_grad(), batch {big}")
    expect(guide).to_contain_text(
        "✓ Step 5 done. No graph (0.00 MB saved) and the same output as eval mode (difference 0): "
        "model.eval() with torch.no_grad() is the recipe for inference."
    )
    expect(guide).to_contain_text("Guide · Finished: You have seen the whole lesson in action.")
    expect(skip).to_be_disabled()
    src = expect_new_image(plot, src)
    screenshot(cell, f"{ASSIGNMENT}-guide-6")
    assert_fits_a_laptop(lab, widget, f"{ASSIGNMENT}-finished")

    # ---- restart and skip
    button(widget, "restart guide").click()
    expect(guide).to_have_text(
        "Guide · Step 1 of 5: Leave every switch off (tracking on, train mode) and click run forward pass."
    )
    expect(skip).to_be_enabled()
    skip.click()
    expect(guide).to_contain_text("Step 1 skipped.")
    expect(guide).to_contain_text("Guide · Step 2 of 5")
    assert len(log.inner_text().strip().splitlines()) == 5, "the guide's buttons run nothing"

    # ---- the free controls: inference_mode with eval(), a small batch
    checkbox(widget, "with torch.no_grad()").uncheck()
    checkbox(widget, "with torch.inference_mode()").check()
    drag_slider(slider, 0.02)
    expect(readout).not_to_have_text(str(big))
    batch = int(readout.inner_text())
    assert 8 <= batch < 256 and batch % 8 == 0
    run.click()
    expect(status).to_contain_text(f"model.eval() + torch.inference_mode(), batch {batch}")
    expect(status).to_contain_text("output.requires_grad = False")
    expect(log).to_have_text(re.compile(rf"^\s*6\. batch {batch:>4}  model.eval\(\) \+ torch.inference_mode\(\) "))
    expect(guide).to_contain_text("Guide · Step 2 of 5")  # step 2 asks for no_grad() itself
    expect(guide).to_contain_text("That was not this step's action: this step asks you to run with")
    src = expect_new_image(plot, src)
    assert len(log.inner_text().strip().splitlines()) == 6
    screenshot(cell, ASSIGNMENT)
    assert_fits_a_laptop(lab, widget, f"{ASSIGNMENT}-after-the-controls")  # many runs in the log and plot

    button(widget, "reset").click()
    expect(status).to_contain_text("No run yet")
    expect(log).to_have_text("")
    expect(readout).to_have_text("256")
    for name in ("with torch.no_grad()", "with torch.inference_mode()", "model.eval()"):
        expect(checkbox(widget, name)).not_to_be_checked()
    expect(guide).to_contain_text("Guide · Step 2 of 5")  # reset keeps the guide's place
    assert expect_new_image(plot, src) == first_src, "reset should draw the empty plot again"
    assert kernel_log_count(lab.page) == 0, "a widget callback wrote to the log console (an exception?)"
    lab.assert_no_javascript_errors()
