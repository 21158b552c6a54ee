"""Every control of each lesson's explorer, operated in JupyterLab in a real browser, changes what the
explorer shows in the way it should: the status line, the log or table, and the plot (a new PNG).

Only the explorer's own cell runs (it imports what it needs), so each test is quick; the lesson tests
run the whole notebooks. A screenshot of each explorer, after its controls were used, is kept in
test-artifacts/browser/<assignment>.png."""

from __future__ import annotations

import math
import re

import pytest
from playwright.sync_api import Locator, expect

from gradlessons.explorer.state import format_value
from tests.browser.lab import CELL_MS, drag_slider, expect_new_image, img_src, kernel_log_count, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def open_explorer(lab, assignment: str, class_name: str) -> tuple[Locator, Locator]:
    """Open the lesson's source notebook, run the explorer's cell only; returns (cell, widget)."""
    notebook = lab.open_notebook(f"notebooks/{assignment}/{assignment}.ipynb")
    cell = notebook.run_cell(notebook.index(contains=f"{class_name}()"))
    widget = cell.locator(".jp-Cell-outputArea .widget-vbox").first
    widget.locator(".widget-output img").wait_for(timeout=CELL_MS)
    assert notebook.problems() == []
    return cell, widget


def button(widget: Locator, text: str) -> Locator:
    return widget.get_by_role("button", name=text, exact=True)


def checkbox(widget: Locator, description: str) -> Locator:
    return widget.locator(".widget-checkbox", has_text=description).locator("input[type=checkbox]")


def dropdown(widget: Locator, description: str) -> Locator:
    return widget.locator(f".widget-dropdown:has(label:text-is('{description}')) select")


def html_part(widget: Locator, text: str) -> Locator:
    """The ``HTML`` widget of the explorer that contains ``text`` (e.g. its log's title)."""
    return widget.locator(".widget-html", has_text=text)


# --------------------------------------------------------------------------- lesson 1


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


# --------------------------------------------------------------------------- lesson 2


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


# --------------------------------------------------------------------------- lesson 3


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


# --------------------------------------------------------------------------- lesson 4


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
