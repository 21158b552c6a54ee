"""One guide for the four explorers: the same class, controls and behaviour in each (an off-script click
gets a word, a ✓ note is shown once, under the action that did the step, one "skip step" disabled when done, a text area
beside the figure and as tall as it, so nothing moves as the text changes)."""

from __future__ import annotations

import pytest

from gradlessons.guide import RESTART, SKIP, Guide, GuideStep
from tests.unit.gradlessons.widget_helpers import beside_the_figure

pytest.importorskip("ipywidgets")


def _explorers():
    """Each explorer's view, a click that is off-script for step 1, and one that does step 1."""
    from gradlessons.gradient_explorer.view import GradExplorer
    from gradlessons.graph_explorer.view import GraphExplorer
    from gradlessons.inference_explorer.state import InferenceExplorerState
    from gradlessons.inference_explorer.view import InferenceExplorer
    from gradlessons.tangent_explorer.view import TangentExplorer

    def graph_off(e):
        e.checkboxes["c"].value = True

    def inference_off(e):
        e.no_grad.value = True
        e.run_button.click()

    def inference_do(e):
        e.no_grad.value = False
        e.run_button.click()

    small = InferenceExplorerState(in_features=4, hidden=4, repeats=1)
    return {
        "graph": (GraphExplorer(), graph_off, lambda e: e.buttons["apply"].click()),
        "tangent": (TangentExplorer(), lambda e: e.again_button.click(), lambda e: setattr(e.x_slider, "value", 0.0)),
        "gradient": (
            GradExplorer(),
            lambda e: e.buttons["step"].click(),
            lambda e: [e.buttons["backward"].click() for _ in range(3)],
        ),
        "inference": (InferenceExplorer(small), inference_off, inference_do),
    }


@pytest.fixture(scope="module")
def explorers():
    return _explorers()


@pytest.mark.parametrize("name", ["graph", "tangent", "gradient", "inference"])
def test_explorers_share_the_guide(explorers, name):
    explorer, _, _ = explorers[name]
    assert type(explorer.state.guide) is Guide
    assert [b.description for b in explorer.guide_buttons.values()] == [SKIP, RESTART]
    assert {b.button_style for b in explorer.guide_buttons.values()} == {""}  # one style, in all four
    assert beside_the_figure(explorer)  # as tall as the figure: nothing moves as the text changes
    assert explorer.guide.value.count("Guide &middot; Step 1 of") == 1


@pytest.mark.parametrize("name", ["graph", "tangent", "gradient", "inference"])
def test_explorers_answer_off_script(name):
    explorer, off_script, do_step_1 = _explorers()[name]
    guide = explorer.state.guide
    off_script(explorer)
    assert guide.index == 0 and guide.note.startswith("That was not this step's action: this step asks you to ")
    assert "That was not this step's action" in explorer.guide.value
    do_step_1(explorer)
    assert guide.index >= 1 and guide.note.startswith(("✓ Step 1 done. ", "✓ Steps 1 and 2 done. ")) and guide.looks
    while not guide.finished:
        explorer.guide_buttons["skip"].click()
    assert explorer.guide_buttons["skip"].disabled
    explorer.guide_buttons["restart"].click()
    assert guide.index == 0 and guide.note == "" and not explorer.guide_buttons["skip"].disabled


def _counter_guide():
    steps = [
        GuideStep("Click a three times.", lambda s: s["a"] >= 3, lambda s: f"a is {s['a']}", actions=("a",)),
        GuideStep("Click b.", lambda s: s["b"] >= 1, "b clicked", asks="click `b`"),
    ]
    return Guide(steps)


def test_a_done_note_is_shown_once_then_goes():
    guide, state = _counter_guide(), {"a": 0, "b": 0}
    for _ in range(3):
        state["a"] += 1
        guide.observe(state, action="a")
    assert guide.note == "✓ Step 1 done. a is 3" and guide.looks == [(1, "a is 3")]
    state["a"] += 1
    guide.observe(state, action="a")  # not step 2's action
    assert guide.note == "That was not this step's action: this step asks you to click `b`."
    guide.observe(state, action=None)  # no click (a re-check): nothing wrong was done
    assert guide.note == "" and guide.looks == []  # "a is 3" is no longer true, and step 1 was not done again
    state["b"] += 1
    assert guide.observe(state, action="b") and guide.finished and guide.heading == "Finished"


def test_on_script_clicks_not_warned():
    guide, state = _counter_guide(), {"a": 0, "b": 0}
    state["a"] += 1
    guide.observe(state, action="a")
    assert guide.note == "" and guide.index == 0


def test_done_steps_pass_together():
    guide, state = _counter_guide(), {"a": 3, "b": 1}
    assert guide.observe(state, action="a")
    assert guide.finished and guide.note == "✓ Steps 1 and 2 done. a is 3 b clicked"
    guide.restart()
    guide.skip(state)  # step 2 is already done: passed too
    assert guide.finished and guide.note == "Step 1 skipped. ✓ Step 2 done. b clicked"
    guide.skip()
    assert guide.finished  # nothing left to skip


def test_a_guide_needs_steps():
    with pytest.raises(ValueError, match="at least one step"):
        Guide([])
