"""Every button of lesson 3's gradient explorer, clicked in JupyterLab in a real browser, writes the log line
and status it should and draws a new plot; and its guided sequence, followed step by step, shows each step's
prompt and what to look at.
A screenshot of the explorer, after its controls were used, is kept in test-artifacts/browser/<assignment>.png,
and one per step of the guide in <assignment>-guide-<k>.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.explorers import assert_fits_a_laptop, button, html_part, open_explorer
from tests.browser.lab import expect_new_image, img_src, kernel_log_count, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_buttons_update_plot_and_log(lab):
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
    assert_fits_a_laptop(lab, widget, "lesson3_zeroing_grad-after-the-controls")  # a full log

    button(widget, "reset (start over)").click()
    expect(log).to_have_text(re.compile(r"^\s*0\. start\s+start: w = 0.0 and w.grad is None[^\n]*\s*$"))
    expect(status).to_contain_text("w.grad = None")
    expect(status).to_contain_text("w = 0.0")
    assert expect_new_image(plot, src) == first_src, "reset should draw the starting picture again"
    assert kernel_log_count(lab.page) == 0, "a widget callback wrote to the log console (an exception?)"
    lab.assert_no_javascript_errors()


# The guided sequence: (buttons to click, what the guide then says was seen, the step it shows next).
GUIDE = [
    (
        ["loss.backward()"] * 3,
        "✓ w.grad is -24.0: 3 times -8.0, the gradient of one backward() at w = 0.0.",
        "Step 2 of 6: Now click optimizer.step().",
    ),
    (
        ["optimizer.step()"],
        "✓ step() moved w from 0.0 to 1.2: it used everything in w.grad (-24.0). That is 3 gradients' worth: "
        "a step 3 times as long as one gradient asks for, so w overshot the best value 1.0.",
        "Step 3 of 6: Now clear the gradient: click optimizer.zero_grad().",
    ),
    (
        ["optimizer.zero_grad()"],
        "✓ w.grad is None (the hollow circle in the grey band): optimizer.zero_grad() dropped the old gradient",
        "Step 4 of 6: Click loss.backward() once.",
    ),
    (
        ["loss.backward()"],
        "✓ w.grad is 1.6: exactly the gradient at w = 1.2, with nothing old added.",
        "Step 5 of 6: Click optimizer.step() again.",
    ),
    (
        ["optimizer.step()"],
        "✓ w moved from 1.2 to 1.12 and the loss fell from 0.16 to 0.0576, using this gradient only.",
        "Step 6 of 6: Last: click zero_grad(set_to_none=False). Then compare w.grad with what plain "
        "optimizer.zero_grad() left in guide step 3.",
    ),
    (
        ["zero_grad(set_to_none=False)"],
        "✓ w.grad is 0.0 (an orange diamond on the zero line), not None",
        "Finished:",
    ),
]


def test_guide_leads_through_steps(lab):
    cell, widget = open_explorer(lab, "lesson3_zeroing_grad", "GradExplorer")
    assert_fits_a_laptop(lab, widget, "lesson3_zeroing_grad")  # as it opens, before any step
    plot = widget.locator(".widget-output")
    guide = html_part(widget, "Guide ·")
    status = html_part(widget, "backward() calls since the last clear")
    src = img_src(plot)

    expect(guide).to_have_text(
        re.compile(r"^\s*Guide · Step 1 of 6: Click loss\.backward\(\) three times and watch w\.grad\.\s*$")
    )
    screenshot(cell, "lesson3_zeroing_grad-guide-1")
    for k, (clicks, seen, shown) in enumerate(GUIDE, start=2):
        for name in clicks:
            button(widget, name).click()
            src = expect_new_image(plot, src)
        expect(guide).to_contain_text(f"✓ Step {k - 1} done. " + seen.removeprefix("✓ "))
        expect(guide).to_contain_text("Guide · " + shown)
        screenshot(cell, f"lesson3_zeroing_grad-guide-{k}")
    expect(status).to_contain_text("w.grad = 0.0")
    expect(button(widget, "skip step")).to_be_disabled()

    # Restart: the explorer starts over with the guide at step 1; an off-script click gets a word; skip moves on.
    button(widget, "restart guide").click()
    expect(guide).to_contain_text("Guide · Step 1 of 6")
    expect(guide).not_to_contain_text("✓")
    expect(status).to_contain_text("w.grad = None")
    expect(status).to_contain_text("w = 0.0")
    button(widget, "optimizer.step()").click()
    expect(guide).to_contain_text(
        "That was not this step's action: this step asks you to click loss.backward() three times."
    )
    button(widget, "skip step").click()
    expect(guide).to_contain_text("Step 1 skipped.")
    expect(guide).to_contain_text("Guide · Step 2 of 6")
    button(widget, "loss.backward()").click()
    expect(status).to_contain_text("w.grad = -8.0")
    assert kernel_log_count(lab.page) == 0, "a widget callback wrote to the log console (an exception?)"
    lab.assert_no_javascript_errors()
