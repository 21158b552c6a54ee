"""Lesson 1's graph explorer in JupyterLab in a real browser: a student follows its guide step by step
(each step's message is checked, and a screenshot of each is kept in
test-artifacts/browser/lesson1_requires_grad-guide-<k>.png), then every free control changes the status
line, the table and the drawn graph the way it should. A screenshot of the explorer after its controls
were used is kept in test-artifacts/browser/lesson1_requires_grad.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from gradlessons.graph_explorer.state import FINISHED, GUIDE_STEPS
from tests.browser.explorers import assert_fits_a_laptop, button, checkbox, dropdown, html_part, open_explorer
from tests.browser.lab import expect_new_image, img_src, kernel_log_count, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ASSIGNMENT = "lesson1_requires_grad"
OPENING = "t1 = a * b, t2 = t1 + c ran; the drawing shows the graph behind t2."


def plain(text: str) -> str:
    """A guide text as the page shows it (code between backticks is shown without them)."""
    return text.replace("`", "")


def row(name: str, requires_grad: bool, is_leaf: bool, grad_fn: str, code: str) -> re.Pattern:
    """A line of the explorer's tensor table."""
    return re.compile(rf"^{name}\s+{requires_grad}\s+{is_leaf}\s+{grad_fn}\s+{re.escape(code)}$", re.M)


def test_student_follows_the_guide(lab):
    cell, widget = open_explorer(lab, ASSIGNMENT, "GraphExplorer")
    assert_fits_a_laptop(lab, widget, ASSIGNMENT)  # as it opens, before any step
    guide = widget.locator(".explorer-guide")
    status = widget.locator(".explorer-status")
    hint = html_part(widget, "next:")
    table = html_part(widget, "Tensors").locator("pre")
    plot = widget.locator(".widget-output")
    src = img_src(plot)

    def expect_step(done: int | None, prompt: str) -> None:
        if done is None:  # also after a click that completed nothing: the last ✓ note was about before it
            expect(guide).not_to_contain_text("done.")
        else:
            expect(guide).to_contain_text(f"✓ Step {done} done. {plain(GUIDE_STEPS[done - 1].look)}")
        expect(guide).to_contain_text(plain(prompt))

    # It opens on the starter expression, with its graph drawn and step 1 of the guide.
    expect(status).to_have_text(OPENING)
    expect(table).to_contain_text(row("t2", True, False, "AddBackward0", "t2 = t1 + c"))
    expect(hint).to_have_text("next: t3 = t2.sin()")
    expect_step(None, "Guide · Step 1 of 4: " + GUIDE_STEPS[0].prompt)
    screenshot(cell, f"{ASSIGNMENT}-guide-1")

    # Step 1: apply sin to t2 (the menus are already set).
    button(widget, "apply").click()
    expect(status).to_have_text("t3 = t2.sin(): requires_grad=True, grad_fn=SinBackward0")
    src = expect_new_image(plot, src)
    expect_step(1, "Guide · Step 2 of 4: " + GUIDE_STEPS[1].prompt)
    screenshot(cell, f"{ASSIGNMENT}-guide-2")

    # Step 2: tick c.requires_grad.
    checkbox(widget, "c.requires_grad").check()
    expect(table).to_contain_text(row("c", True, True, "None", "c = torch.tensor([3.0, 0.25], requires_grad=True)"))
    src = expect_new_image(plot, src)
    expect_step(2, "Guide · Step 3 of 4: " + GUIDE_STEPS[2].prompt)
    screenshot(cell, f"{ASSIGNMENT}-guide-3")

    # Step 3: untick a and b; after the first one the guide still waits.
    checkbox(widget, "a.requires_grad").uncheck()
    expect(status).to_have_text("a.requires_grad = False: the forward pass ran again, so the graph was recorded anew.")
    src = expect_new_image(plot, src)
    expect_step(None, "Guide · Step 3 of 4: ")
    checkbox(widget, "b.requires_grad").uncheck()
    expect(table).to_contain_text(row("t1", False, True, "None", "t1 = a * b"))
    src = expect_new_image(plot, src)
    expect_step(3, "Guide · Step 4 of 4: " + GUIDE_STEPS[3].prompt)
    screenshot(cell, f"{ASSIGNMENT}-guide-4")

    # Step 4: detach t3.
    dropdown(widget, "operation").select_option("detach")
    expect(hint).to_have_text("next: t4 = t3.detach()")
    button(widget, "apply").click()
    expect(table).to_contain_text(row("t4", False, True, "None", "t4 = t3.detach()"))
    src = expect_new_image(plot, src)
    expect_step(4, "Guide · Finished: " + FINISHED)
    expect(button(widget, "skip step")).to_be_disabled()
    screenshot(cell, f"{ASSIGNMENT}-guide-5")
    assert_fits_a_laptop(lab, widget, f"{ASSIGNMENT}-finished")  # two more rows in the table, the longest note

    # Restart: back to the opening state and step 1; skip moves on without doing the step.
    button(widget, "restart guide").click()
    expect(status).to_have_text("Guide restarted: " + OPENING)
    expect_step(None, "Guide · Step 1 of 4: ")
    expect(checkbox(widget, "a.requires_grad")).to_be_checked()
    expect(table).not_to_contain_text("t3")
    expect(button(widget, "skip step")).to_be_enabled()
    checkbox(widget, "c.requires_grad").check()  # not step 1's action: the guide says what it asks
    expect(guide).to_contain_text("That was not this step's action: this step asks you to apply an operation")
    button(widget, "skip step").click()
    expect(guide).to_contain_text("Step 1 skipped.")
    assert kernel_log_count(lab.page) == 0, "a widget callback wrote to the log console (an exception?)"
    lab.assert_no_javascript_errors()


def test_controls_rebuild_the_graph(lab):
    cell, widget = open_explorer(lab, ASSIGNMENT, "GraphExplorer")
    plot = widget.locator(".widget-output")
    hint = html_part(widget, "next:")
    status = widget.locator(".explorer-status")
    table = html_part(widget, "Tensors").locator("pre")
    src = img_src(plot)

    expect(checkbox(widget, "a.requires_grad")).to_be_checked()
    expect(checkbox(widget, "b.requires_grad")).to_be_checked()
    expect(checkbox(widget, "c.requires_grad")).not_to_be_checked()
    expect(table).to_contain_text(row("c", False, True, "None", "c = torch.tensor([3.0, 0.25])"))

    # Undo twice removes the starter expression: the free explorer, as before the guide.
    button(widget, "undo").click()
    expect(status).to_have_text("Undid t2 = t1 + c.")
    button(widget, "undo").click()
    expect(status).to_have_text("Undid t1 = a * b.")
    expect(table).not_to_contain_text("t1")
    src = expect_new_image(plot, src)

    # The three menus change the code of the next operation.
    dropdown(widget, "operation").select_option("add")
    dropdown(widget, "x").select_option("c")
    expect(hint).to_have_text("next: t1 = c + b")
    dropdown(widget, "y").select_option("a")
    expect(hint).to_have_text("next: t1 = c + a")

    button(widget, "apply").click()
    expect(status).to_have_text("t1 = c + a: requires_grad=True, grad_fn=AddBackward0")
    expect(table).to_contain_text(row("t1", True, False, "AddBackward0", "t1 = c + a"))
    expect(dropdown(widget, "x")).to_have_value("t1")
    expect(hint).to_have_text("next: t2 = t1 + a")
    src = expect_new_image(plot, src)

    # A one-operand operation disables the second operand.
    dropdown(widget, "operation").select_option("sin")
    expect(hint).to_have_text("next: t2 = t1.sin()")
    expect(dropdown(widget, "y")).to_be_disabled()
    button(widget, "apply").click()
    expect(status).to_have_text("t2 = t1.sin(): requires_grad=True, grad_fn=SinBackward0")
    expect(table).to_contain_text(row("t2", True, False, "SinBackward0", "t2 = t1.sin()"))
    src = expect_new_image(plot, src)

    # requires_grad flags replay the forward pass: without a, nothing behind t2 requires grad.
    checkbox(widget, "a.requires_grad").uncheck()
    expect(status).to_have_text("a.requires_grad = False: the forward pass ran again, so the graph was recorded anew.")
    expect(table).to_contain_text(row("t2", False, True, "None", "t2 = t1.sin()"))
    src = expect_new_image(plot, src)
    checkbox(widget, "c.requires_grad").check()
    expect(status).to_have_text("c.requires_grad = True: the forward pass ran again, so the graph was recorded anew.")
    expect(table).to_contain_text(row("t2", True, False, "SinBackward0", "t2 = t1.sin()"))
    src = expect_new_image(plot, src)

    button(widget, "undo").click()
    expect(status).to_have_text("Undid t2 = t1.sin().")
    expect(table).not_to_contain_text("t2")
    src = expect_new_image(plot, src)
    screenshot(cell, ASSIGNMENT)

    # Reset: back to the opening state.
    button(widget, "reset").click()
    expect(status).to_have_text("Reset: " + OPENING)
    expect(table).to_contain_text(row("t2", True, False, "AddBackward0", "t2 = t1 + c"))
    expect(checkbox(widget, "a.requires_grad")).to_be_checked()
    expect(checkbox(widget, "b.requires_grad")).to_be_checked()
    expect(checkbox(widget, "c.requires_grad")).not_to_be_checked()
    expect_new_image(plot, src)
    assert kernel_log_count(lab.page) == 0, "a widget callback wrote to the log console (an exception?)"
    lab.assert_no_javascript_errors()
