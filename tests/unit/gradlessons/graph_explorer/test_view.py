"""Tests of the lesson 1 graph explorer's view, driven by clicks and value changes."""

import base64

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pytest
import torch

from gradlessons.graph_explorer import GUIDE_STEPS, GraphExplorer, GraphExplorerState, draw_graph
from gradlessons.graph_explorer.state import FINISHED
from tests.unit.gradlessons.widget_helpers import PNG_SIGNATURE, beside_the_figure, legend_inside, text_of

FINISHED_TEXT = FINISHED.replace("`", "")  # as shown: code without its backticks


@pytest.fixture
def explorer():
    """An explorer with no starter expression (the free controls, as before the guide)."""
    return GraphExplorer(GraphExplorerState(starter=()))


@pytest.fixture
def opened():
    """The explorer as the lesson shows it: on the starter expression, at step 1 of the guide."""
    return GraphExplorer()


def png_of(output) -> bytes:
    (item,) = output.outputs
    png = base64.b64decode(item["data"]["image/png"])
    assert png.startswith(PNG_SIGNATURE)
    return png


def image(explorer) -> bytes:
    return png_of(explorer.plot_output)


def apply(explorer, op, x, y=None):
    explorer.op.value = op
    explorer.x.value = x
    if y is not None:
        explorer.y.value = y
    explorer.buttons["apply"].click()


def test_controls_are_core_widgets(explorer):
    assert all(isinstance(b, widgets.Checkbox) for b in explorer.checkboxes.values())
    assert all(isinstance(m, widgets.Dropdown) for m in (explorer.op, explorer.x, explorer.y))
    assert set(explorer.buttons) == {"apply", "undo", "reset"}
    assert set(explorer.guide_buttons) == {"skip", "restart"}
    assert all(isinstance(b, widgets.Button) for b in explorer.guide_buttons.values())
    assert isinstance(explorer.guide, widgets.HTML) and beside_the_figure(explorer)
    assert isinstance(explorer.plot_output, widgets.Output)
    assert explorer.table in explorer.widget.children


def test_opens_on_inputs_and_image(explorer):
    table = text_of(explorer.table.value)
    assert "a = torch.tensor([1.0, 2.0], requires_grad=True)" in table
    image(explorer)


def test_apply_adds_row_status_image(explorer):
    before = image(explorer)
    apply(explorer, "mul", "a", "b")
    assert "t1 = a * b" in text_of(explorer.table.value)
    assert "grad_fn=MulBackward0" in text_of(explorer.status.value)
    alt = explorer.plot_output.outputs[0]["metadata"]["image/png"]["alt"]  # the figure in words, as drawn now
    assert alt.startswith("The computation graph behind t1.") and "MulBackward0 (t1) points to" in alt
    assert image(explorer) != before
    assert "t1" in explorer.x.options and explorer.x.value == "t1"


def test_unary_op_disables_y(explorer):
    explorer.op.value = "add"
    assert not explorer.y.disabled
    explorer.x.value = "a"
    explorer.op.value = "sin"
    assert explorer.y.disabled
    assert "t1 = a.sin()" in text_of(explorer.code_hint.value)
    explorer.op.value = "add"
    assert not explorer.y.disabled


def test_unticking_replays_the_graph(explorer):
    apply(explorer, "mul", "a", "b")
    before = image(explorer)
    explorer.checkboxes["a"].value = False
    explorer.checkboxes["b"].value = False
    assert "t1     False" in text_of(explorer.table.value)
    assert "ran again" in text_of(explorer.status.value)
    assert image(explorer) != before
    assert explorer.state.tensors["t1"].grad_fn is None


def test_undo_and_reset_buttons(explorer):
    apply(explorer, "mul", "a", "c")
    apply(explorer, "exp", "t1")
    explorer.buttons["undo"].click()
    assert "t2" not in text_of(explorer.table.value) and "Undid t2" in text_of(explorer.status.value)
    explorer.checkboxes["c"].value = True
    explorer.buttons["reset"].click()
    assert "t1" not in text_of(explorer.table.value) and "Reset:" in text_of(explorer.status.value)
    assert explorer.checkboxes["c"].value is False and explorer.x.options == ("a", "b", "c")
    explorer.buttons["undo"].click()
    assert "Nothing to undo" in text_of(explorer.status.value)


def test_too_many_ops_refused():
    explorer = GraphExplorer(GraphExplorerState(max_steps=1, starter=()))
    apply(explorer, "sin", "a")
    apply(explorer, "sin", "a")
    assert "Not applied" in text_of(explorer.status.value)


def test_no_figure_left_in_pyplot(explorer):
    apply(explorer, "add", "a", "b")
    assert plt.get_fignums() == []


# --------------------------------------------------------------------------- opening and the guide


def guide_text(explorer) -> str:
    return text_of(explorer.guide.value)


def test_opens_on_starter_step_1(opened):
    assert "t2     True           False    AddBackward0    t2 = t1 + c" in text_of(opened.table.value)
    assert text_of(opened.status.value) == "t1 = a * b, t2 = t1 + c ran; the drawing shows the graph behind t2."
    assert guide_text(opened) == (
        "Guide · Step 1 of 4: Grow the expression: with operation sin and x = t2 chosen, click apply."
    )
    assert "<code>sin</code>" in opened.guide.value
    assert text_of(opened.code_hint.value) == "next: t3 = t2.sin()"
    image(opened)


def test_guide_shows_each_step_done(opened):
    seen = [image(opened)]
    opened.buttons["apply"].click()
    assert guide_text(opened).startswith(f"✓ Step 1 done. {GUIDE_STEPS[0].look}")
    assert "Guide · Step 2 of 4: c is the grey box" in guide_text(opened)
    opened.checkboxes["c"].value = True
    assert guide_text(opened).startswith(f"✓ Step 2 done. {GUIDE_STEPS[1].look}")
    seen.append(image(opened))
    opened.checkboxes["a"].value = False
    assert "done" not in guide_text(opened)  # half of step 3: step 2's note was about the state before
    opened.checkboxes["b"].value = False
    assert guide_text(opened).startswith(f"✓ Step 3 done. {GUIDE_STEPS[2].look}")
    assert "Guide · Step 4 of 4: Cut the graph" in guide_text(opened)
    seen.append(image(opened))
    opened.op.value = "detach"
    assert opened.x.value == "t3" and text_of(opened.code_hint.value) == "next: t4 = t3.detach()"
    opened.buttons["apply"].click()
    assert guide_text(opened) == f"✓ Step 4 done. {GUIDE_STEPS[3].look}Guide · Finished: {FINISHED_TEXT}"
    seen.append(image(opened))
    assert len(set(seen)) == len(seen)


def test_skip_and_restart_buttons(opened):
    opened.guide_buttons["skip"].click()
    assert guide_text(opened).startswith("Step 1 skipped.Guide · Step 2 of 4")
    for _ in range(3):
        opened.guide_buttons["skip"].click()
    assert guide_text(opened) == f"Step 4 skipped.Guide · Finished: {FINISHED_TEXT}"
    assert opened.guide_buttons["skip"].disabled  # nothing left to skip
    opened.op.value = "exp"
    opened.buttons["apply"].click()
    opened.checkboxes["a"].value = False
    opened.guide_buttons["restart"].click()
    assert guide_text(opened).startswith("Guide · Step 1 of 4")
    assert not opened.guide_buttons["skip"].disabled
    assert opened.checkboxes["a"].value is True and "t3" not in text_of(opened.table.value)
    assert text_of(opened.code_hint.value) == "next: t3 = t2.sin()"
    assert text_of(opened.status.value).startswith("Guide restarted: t1 = a * b, t2 = t1 + c ran")


def test_reset_and_restart_pick_newest(opened):
    """They choose the newest tensor even when the x menu does not list it yet."""
    for _ in range(2):
        opened.buttons["undo"].click()
    opened.op.value = "exp"
    opened.x.value = "a"
    opened.buttons["apply"].click()
    assert opened.x.options == ("a", "b", "c", "t1")
    opened.buttons["reset"].click()
    assert opened.x.options == ("a", "b", "c", "t1", "t2") and opened.x.value == "t2"
    assert "t2     True           False    AddBackward0    t2 = t1 + c" in text_of(opened.table.value)
    opened.buttons["undo"].click()
    opened.buttons["undo"].click()
    opened.guide_buttons["restart"].click()
    assert opened.x.value == "t2" and "t2 = t1 + c" in text_of(opened.table.value)


def test_out_of_order_steps_done(opened):
    opened.checkboxes["c"].value = True
    assert guide_text(opened).startswith("That was not this step's action: this step asks you to apply")
    opened.buttons["apply"].click()
    text = guide_text(opened)
    assert text.startswith(f"✓ Steps 1 and 2 done. {GUIDE_STEPS[0].look} {GUIDE_STEPS[1].look}")
    assert text.endswith("Guide · Step 3 of 4: Untick a.requires_grad and b.requires_grad.")


def test_free_controls_work_in_guide(opened):
    opened.op.value = "mul"
    opened.x.value = "a"
    opened.y.value = "c"
    opened.buttons["apply"].click()
    assert "t3 = a * c: requires_grad=True, grad_fn=MulBackward0" in text_of(opened.status.value)
    assert guide_text(opened).startswith("✓ Step 1 done.")


# --------------------------------------------------------------------------- draw_graph on any tensor


def test_draw_graph_shows_a_png():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    x = torch.tensor([3.0, 4.0])
    loss = (w * x).sum()
    output = draw_graph(loss, {"w": w, "x": x, "loss": loss})
    assert isinstance(output, widgets.Output)
    assert output.outputs[0]["data"]["text/plain"] == "<graph behind loss>"
    named = png_of(output)
    assert png_of(draw_graph(loss)) != named  # unnamed: other labels
    assert png_of(draw_graph(w.detach())).startswith(PNG_SIGNATURE)
    assert plt.get_fignums() == []


def test_draw_graph_says_in_words_each_box_and_where_it_points():
    x = torch.tensor(2.0, requires_grad=True)
    c = torch.tensor(3.0)
    y = x * c
    z = y.sin() + x
    alt = draw_graph(z, {"x": x, "c": c, "y": y, "z": z}).outputs[0]["metadata"]["image/png"]["alt"]
    assert alt.startswith("The computation graph behind z. Each arrow goes from a backward node to the nodes in")
    assert "AddBackward0 (z) points to SinBackward0 and to AccumulateGrad (x)." in alt
    assert "MulBackward0 (y) points to AccumulateGrad (x) and to c (no grad)." in alt  # as the boxes say
    alt = draw_graph(c, {"c": c}).outputs[0]["metadata"]["image/png"]["alt"]
    assert "It is a single box: c (no grad)." in alt and "does not require grad" in alt


def test_draw_graph_needs_a_tensor():
    with pytest.raises(TypeError, match="needs a tensor"):
        draw_graph([1.0, 2.0])


def test_the_legend_fits_inside_the_explorers_figure(opened):
    fig = opened.draw_figure()  # narrower than the three kinds side by side: they go on two rows
    assert legend_inside(fig)
    fig.clear()
