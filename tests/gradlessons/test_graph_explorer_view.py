"""Tests of the lesson 1 graph explorer's view, driven by clicks and value changes."""

import base64

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pytest

from gradlessons.graph_explorer import GraphExplorer, GraphExplorerState
from tests.gradlessons.widget_helpers import PNG_SIGNATURE, text_of


@pytest.fixture
def explorer():
    return GraphExplorer()


def image(explorer) -> bytes:
    (item,) = explorer.plot_output.outputs
    png = base64.b64decode(item["data"]["image/png"])
    assert png.startswith(PNG_SIGNATURE)
    return png


def apply(explorer, op, x, y=None):
    explorer.op.value = op
    explorer.x.value = x
    if y is not None:
        explorer.y.value = y
    explorer.buttons["apply"].click()


def test_the_controls_are_core_widgets(explorer):
    assert all(isinstance(b, widgets.Checkbox) for b in explorer.checkboxes.values())
    assert all(isinstance(m, widgets.Dropdown) for m in (explorer.op, explorer.x, explorer.y))
    assert set(explorer.buttons) == {"apply", "undo", "reset"}
    assert isinstance(explorer.plot_output, widgets.Output) and explorer.plot_output in explorer.widget.children
    assert explorer.table in explorer.widget.children


def test_a_new_explorer_shows_the_inputs_and_one_image(explorer):
    table = text_of(explorer.table.value)
    assert "a = torch.tensor([1.0, 2.0], requires_grad=True)" in table
    image(explorer)


def test_apply_adds_a_row_a_status_line_and_a_new_image(explorer):
    before = image(explorer)
    apply(explorer, "mul", "a", "b")
    assert "t1 = a * b" in text_of(explorer.table.value)
    assert "grad_fn=MulBackward0" in text_of(explorer.status.value)
    assert image(explorer) != before
    assert "t1" in explorer.x.options and explorer.x.value == "t1"


def test_a_unary_operation_disables_the_second_operand(explorer):
    explorer.op.value = "sin"
    assert explorer.y.disabled
    assert "t1 = a.sin()" in text_of(explorer.code_hint.value)
    explorer.op.value = "add"
    assert not explorer.y.disabled


def test_unticking_a_checkbox_replays_and_changes_the_graph(explorer):
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
    assert "t1" not in text_of(explorer.table.value)
    assert explorer.checkboxes["c"].value is False and explorer.x.options == ("a", "b", "c")
    explorer.buttons["undo"].click()
    assert "Nothing to undo" in text_of(explorer.status.value)


def test_too_many_operations_are_refused_in_the_status_line():
    explorer = GraphExplorer(GraphExplorerState(max_steps=1))
    apply(explorer, "sin", "a")
    apply(explorer, "sin", "a")
    assert "Not applied" in text_of(explorer.status.value)


def test_no_figure_is_left_open_in_pyplot(explorer):
    apply(explorer, "add", "a", "b")
    assert plt.get_fignums() == []
