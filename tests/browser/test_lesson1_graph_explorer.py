"""Every control of lesson 1's graph explorer, operated in JupyterLab in a real browser, changes the status
line, the table and the drawn graph the way it should.
A screenshot of the explorer, after its controls were used, is kept in test-artifacts/browser/<assignment>.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.explorers import button, checkbox, dropdown, html_part, open_explorer
from tests.browser.lab import expect_new_image, img_src, kernel_log_count, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_graph_explorer_controls_rebuild_the_table_and_the_drawn_graph(lab):
    cell, widget = open_explorer(lab, "lesson1_requires_grad", "GraphExplorer")
    plot = widget.locator(".widget-output")
    hint = html_part(widget, "next:")
    status = widget.locator(".widget-html").nth(2)
    table = html_part(widget, "Tensors").locator("pre")
    src = img_src(plot)

    expect(checkbox(widget, "a.requires_grad")).to_be_checked()
    expect(checkbox(widget, "b.requires_grad")).to_be_checked()
    expect(checkbox(widget, "c.requires_grad")).not_to_be_checked()
    expect(hint).to_have_text("next: t1 = a * b")
    expect(status).to_have_text("Pick an operation and its operands, then click apply.")
    expect(table).to_contain_text(re.compile(r"^c\s+False\s+True\s+None\s+c = torch.tensor\(\[3.0, 0.25\]\)$", re.M))

    # The three menus change the code of the next operation.
    dropdown(widget, "operation").select_option("add")
    expect(hint).to_have_text("next: t1 = a + b")
    dropdown(widget, "x").select_option("c")
    expect(hint).to_have_text("next: t1 = c + b")
    dropdown(widget, "y").select_option("a")
    expect(hint).to_have_text("next: t1 = c + a")

    button(widget, "apply").click()
    expect(status).to_have_text("t1 = c + a: requires_grad=True, grad_fn=AddBackward0")
    expect(table).to_contain_text(re.compile(r"^t1\s+True\s+False\s+AddBackward0\s+t1 = c \+ a$", re.M))
    expect(dropdown(widget, "x")).to_have_value("t1")
    expect(hint).to_have_text("next: t2 = t1 + a")
    src = expect_new_image(plot, src)

    # A one-operand operation disables the second operand.
    dropdown(widget, "operation").select_option("sin")
    expect(hint).to_have_text("next: t2 = t1.sin()")
    expect(dropdown(widget, "y")).to_be_disabled()
    button(widget, "apply").click()
    expect(status).to_have_text("t2 = t1.sin(): requires_grad=True, grad_fn=SinBackward0")
    expect(table).to_contain_text(re.compile(r"^t2\s+True\s+False\s+SinBackward0\s+t2 = t1.sin\(\)$", re.M))
    src = expect_new_image(plot, src)

    # requires_grad flags replay the forward pass: without a, nothing behind t2 requires grad.
    checkbox(widget, "a.requires_grad").uncheck()
    expect(status).to_have_text("a.requires_grad = False: the forward pass ran again, so the graph was recorded anew.")
    expect(table).to_contain_text(re.compile(r"^t2\s+False\s+True\s+None\s+t2 = t1.sin\(\)$", re.M))
    src = expect_new_image(plot, src)
    checkbox(widget, "c.requires_grad").check()
    expect(status).to_have_text("c.requires_grad = True: the forward pass ran again, so the graph was recorded anew.")
    expect(table).to_contain_text(re.compile(r"^t2\s+True\s+False\s+SinBackward0\s+t2 = t1.sin\(\)$", re.M))
    src = expect_new_image(plot, src)
    checkbox(widget, "b.requires_grad").uncheck()
    expect(status).to_have_text("b.requires_grad = False: the forward pass ran again, so the graph was recorded anew.")
    expect(table).to_contain_text(re.compile(r"^b\s+False\s+True\s+None\s+b = torch.tensor", re.M))

    button(widget, "undo").click()
    expect(status).to_have_text("Undid t2 = t1.sin().")
    expect(table).not_to_contain_text("t2")
    src = expect_new_image(plot, src)
    screenshot(cell, "lesson1_requires_grad")

    button(widget, "reset").click()
    expect(status).to_have_text("Reset: no operations, a and b require grad, c does not.")
    expect(table).not_to_contain_text("t1")
    expect(checkbox(widget, "a.requires_grad")).to_be_checked()
    expect(checkbox(widget, "b.requires_grad")).to_be_checked()
    expect(checkbox(widget, "c.requires_grad")).not_to_be_checked()
    expect_new_image(plot, src)
    assert kernel_log_count(lab.page) == 0, "a widget callback wrote to the log console (an exception?)"
    lab.assert_no_javascript_errors()
