"""The explorers and figures speak the learner's language (issue 37), checked with a pseudo-language.

Inside ``pseudo_language`` every string ``gradlessons`` marks for translation comes out as
``⟦English⟧``.  Each of the four explorers is built there and walked through its whole guide; every text
a learner reads (guide prompts, asks, looks, notes, button labels, tooltips, status lines, log headers,
table headers, axis labels, titles, legends, alt texts) must then hold nothing but pseudo-translated
words and code.  An unmarked sentence shows up as bare English words outside any ``⟦…⟧``.

Outside the block everything is English again, byte for byte, and the pseudo-language is chosen after
the modules were imported: an explorer translates when it is built, a figure when it is drawn.
"""

from __future__ import annotations

import html
import re

import pytest
import torch

from tests.i18n_pseudo import pseudo_language, wrapped

pytest.importorskip("ipywidgets")

#: Words that are code or PyTorch's names: they stay English in every language.
CODE_WORDS = frozenset(
    """grad backward loss optimizer step zero_grad set_to_none True False None requires_grad grad_fn is_leaf
    torch tensor no_grad inference_mode model eval train output sin exp sum detach pow AccumulateGrad""".split()
)
#: PyTorch's class names (``MulBackward0``) and other identifiers with a digit, a capital inside or a ``_``.
IDENTIFIER = re.compile(r"^(?:[A-Za-z]+\d+|[a-z]+[A-Z]\w*|\w*_\w*)$")


def bare_words(text: str) -> list[str]:
    """The words of ``text`` outside every ``⟦…⟧`` that are not code: what was shown untranslated."""
    text = html.unescape(re.sub(r"<code>.*?</code>", " ", text, flags=re.S))
    text = re.sub(r"`[^`]*`", " ", text)
    while True:  # innermost first: a translated sentence may hold a translated phrase
        inner = re.sub(r"⟦[^⟦⟧]*⟧", " ", text)
        if inner == text:
            break
        text = inner
    text = re.sub(r"<[^>]+>", " ", text)
    words = re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", text)
    return [w for w in words if w not in CODE_WORDS and not IDENTIFIER.match(w)]


def translated(text: str) -> bool:
    """``text`` was translated, and shows no untranslated word."""
    return wrapped(text) and not bare_words(text)


def figure_texts(fig) -> list[str]:
    """Every title, axis label and legend entry of a pyplot-free figure."""
    texts = []
    for ax in fig.axes:
        texts += [t for t in (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) if t.strip()]
        if ax.get_legend() is not None:
            texts += [t.get_text() for t in ax.get_legend().get_texts()]
    for legend in fig.legends:
        texts += [t.get_text() for t in legend.get_texts()]
    return texts


def shown_image(output) -> tuple[str, str]:
    """The alt text and plain-text label of the PNG an ``Output`` shows."""
    (shown,) = output.outputs
    return shown["metadata"]["image/png"]["alt"], shown["data"]["text/plain"]


# ---------------------------------------------------------------------- walking each explorer


def walk_gradient(texts: dict) -> None:
    from gradlessons.gradient_explorer.view import GradExplorer, draw_history, labels

    explorer = GradExplorer()
    clicks = ["step", "backward", "backward", "backward", "step", "zero_grad", "backward", "step"]
    _walk(texts, explorer, lambda name: explorer.buttons[name].click(), clicks + ["zero_grad_fill_zeros"])
    explorer.buttons["grad_to_none"].click()
    explorer.buttons["zero_grad_set_to_none"].click()  # the notes of every clearing call, from None too
    texts["gradient status/log"] = [explorer.status.value, explorer.log.value]
    texts["gradient figure"] = figure_texts(draw_history(explorer.state.history, explorer.state.optimum))
    texts["gradient image"] = list(shown_image(explorer.plot_output))
    texts["gradient labels"] = labels()


def walk_tangent(texts: dict) -> None:
    from gradlessons.tangent_explorer.view import TangentExplorer, draw_tangent, function_labels, labels

    explorer = TangentExplorer()
    explorer.again_button.click()  # off-script for step 1
    actions = [
        lambda: setattr(explorer.x_slider, "value", 0.0),
        lambda: setattr(explorer.function_menu, "value", "cubic"),
        lambda: setattr(explorer.x_slider, "value", 0.8),
        lambda: setattr(explorer.function_menu, "value", "relu_ish"),
        lambda: setattr(explorer.x_slider, "value", 0.0),
        explorer.again_button.click,
        explorer.again_button.click,
        explorer.again_button.click,
    ]
    _walk(texts, explorer, lambda act: act(), actions, first_note=explorer.state.guide.note)
    texts["tangent status"] = [explorer.status.value]
    texts["tangent figure"] = figure_texts(draw_tangent(explorer.state))
    texts["tangent image"] = list(shown_image(explorer.plot_output))
    texts["tangent labels"] = labels()
    texts["tangent functions"] = [function_labels()["relu_ish"]]


def walk_graph(texts: dict) -> None:
    from gradlessons.graph_explorer.drawing import draw_graph, graph_alt, graph_figure
    from gradlessons.graph_explorer.view import GraphExplorer, labels

    explorer = GraphExplorer()
    explorer.checkboxes["c"].value = True  # off-script for step 1 (and step 2 done early)
    explorer.buttons["reset"].click()

    def apply(op: str, x: str) -> None:
        explorer.op.value, explorer.x.value = op, x
        explorer.buttons["apply"].click()

    actions = [
        lambda: apply("sin", "t2"),
        lambda: setattr(explorer.checkboxes["c"], "value", True),
        lambda: setattr(explorer.checkboxes["a"], "value", False),
        lambda: setattr(explorer.checkboxes["b"], "value", False),
        lambda: apply("detach", "t3"),
    ]
    _walk(texts, explorer, lambda act: act(), actions)
    texts["graph status/table/hint"] = [explorer.status.value, explorer.table.value, explorer.code_hint.value]
    said = []
    for button in ("undo", "reset", "apply"):
        explorer.buttons[button].click()
        said.append(explorer.status.value)
    explorer.guide_buttons["restart"].click()
    said.append(explorer.status.value)
    while "Not applied" not in explorer.status.value and len(said) < 30:  # up to the most operations kept
        explorer.buttons["apply"].click()
        said.append(explorer.status.value)
    assert "Not applied" in said[-1] and "Undid" in said[0]
    texts["graph statuses"] = said
    texts["graph figure"] = figure_texts(graph_figure(explorer.state.graph()))
    texts["graph image"] = list(shown_image(explorer.plot_output))
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    drawn = draw_graph(w * torch.tensor(3.0) + torch.ones(2).exp())
    texts["draw_graph image"] = list(shown_image(drawn))
    texts["graph alt of a leaf"] = [graph_alt(explorer.state.graph("a"))]
    texts["graph labels"] = labels()


def walk_inference(texts: dict) -> None:
    from gradlessons.inference_explorer.state import InferenceExplorerState
    from gradlessons.inference_explorer.view import InferenceExplorer, draw_runs, labels

    torch.manual_seed(0)  # dropout's masks, so the English walk and its repeat show the same differences
    explorer = InferenceExplorer(InferenceExplorerState(in_features=4, hidden=4, repeats=1))
    texts["inference status before a run"] = [explorer.status.value]
    explorer.no_grad.value = True
    explorer.run_button.click()  # off-script for step 1

    def run(no_grad: bool = False, eval_mode: bool = False, batch: int | None = None) -> None:
        explorer.no_grad.value, explorer.eval_mode.value = no_grad, eval_mode
        if batch is not None:
            explorer.batch_size.value = batch
        explorer.run_button.click()

    actions = [
        lambda: run(),
        lambda: run(no_grad=True),
        lambda: run(batch=1024),
        lambda: run(eval_mode=True),
        lambda: run(no_grad=True, eval_mode=True),
    ]
    _walk(texts, explorer, lambda act: act(), actions)
    texts["inference status/log"] = [explorer.status.value, explorer.log.value]
    texts["inference figure"] = figure_texts(draw_runs(explorer.state.history))
    texts["inference image"] = list(shown_image(explorer.plot_output))
    texts["inference labels"] = labels()


def _walk(texts: dict, explorer, act, actions, first_note: str = "") -> None:
    """Do ``actions`` one by one, noting the guide's panel, note and looks after each; then every step's
    prompt and ask, the view's title, tooltips and button labels."""
    name = type(explorer).__name__
    guide = explorer.state.guide
    seen = [explorer.guide.value, first_note] if first_note else [explorer.guide.value]
    for action in actions:
        act(action)
        seen += [explorer.guide.value, guide.note, *(look for _k, look in guide.looks), explorer.status.value]
    assert guide.finished, f"{name}: the walk did not finish the guide"
    texts[f"{name} guide"] = [t for t in seen if t]
    texts[f"{name} steps"] = [text for step in guide.steps for text in (step.prompt, step.asks) if text]
    texts[f"{name} controls"] = [
        widget.tooltip for widget in _descendants(explorer.widget) if getattr(widget, "tooltip", None)
    ] + [explorer.widget.children[0].value]


def _descendants(widget) -> list:
    found = []
    for child in getattr(widget, "children", ()):
        found += [child, *_descendants(child)]
    return found


def walk_figures(texts: dict) -> None:
    from gradlessons import lesson3, lesson4

    never, cleared = [0.5, 5.5, 1.0], [1.0, 2.0, 3.0]
    texts["lesson3 forgetting"] = figure_texts(lesson3.forgetting_to_clear_figure(never, cleared))
    texts["lesson3 forgetting alt"] = [lesson3.forgetting_to_clear_alt(never, cleared)]
    norms = {1.0: [1.0, 10.0, 3500.0], 0.3: [0.5, 0.4, 0.01]}
    texts["lesson3 norms"] = figure_texts(lesson3.layer_grad_norms_figure(norms))
    texts["lesson3 norms alt"] = [lesson3.layer_grad_norms_alt(norms)]
    costs = [lesson4.TrackingCost(64, 1.0, 0.0, 0.5, 0.4), lesson4.TrackingCost(128, 2.0, 0.0, 0.9, 0.7)]
    texts["lesson4 sweep"] = figure_texts(lesson4.batch_sweep_figure(costs))
    texts["lesson4 sweep alt"] = [lesson4.batch_sweep_alt(costs)]


def everything() -> dict[str, list[str] | dict[str, str]]:
    texts: dict = {}
    for walk in (walk_gradient, walk_tangent, walk_graph, walk_inference, walk_figures):
        walk(texts)
    return texts


@pytest.fixture(scope="module")
def english():
    return everything()


@pytest.fixture(scope="module")
def pseudo(tmp_path_factory, english):
    with pseudo_language(str(tmp_path_factory.mktemp("pseudo")), packages=("gradlessons",)):
        return everything()


# ---------------------------------------------------------------------- the tests


#: Button labels that are PyTorch calls: the same in every language.
PYTORCH_LABELS = {"backward", "step", "zero_grad", "zero_grad_set_to_none", "zero_grad_fill_zeros", "grad_to_none"}


def test_every_text_a_learner_reads_is_translated(pseudo):
    untranslated = {}
    for where, texts in pseudo.items():
        values = [v for k, v in texts.items() if k not in PYTORCH_LABELS] if isinstance(texts, dict) else texts
        # a text of code only ("w.grad = 0.0", an axis named "w") has nothing to translate
        bad = [(text[:80], bare_words(text)) for text in values if bare_words(text)]
        if bad:
            untranslated[where] = bad
    assert untranslated == {}


def test_button_labels_that_are_pytorch_calls_stay_as_they_are(pseudo, english):
    assert {name: pseudo["gradient labels"][name] for name in PYTORCH_LABELS} == {
        name: english["gradient labels"][name] for name in PYTORCH_LABELS
    }
    assert pseudo["gradient labels"]["backward"] == "loss.backward()"


def _timeless(texts: dict) -> str:
    """``texts`` with every number (and the padding around it) masked: a run's time in milliseconds
    differs from one run to the next."""
    masked = re.sub(r"\d+(?:\.\d+)?(?:e[-+]\d+)?", "#", repr(texts))
    return re.sub(r" *# *", "#", masked)  # a longer number takes the room of its column's padding


def test_english_is_exactly_english_again_outside_the_block(pseudo, english):
    again = everything()
    assert _timeless(again) == _timeless(english)
    assert {k: v for k, v in again.items() if "nference" not in k} == {
        k: v for k, v in english.items() if "nference" not in k
    }
    assert not any(wrapped(str(texts)) for texts in again.values())


def test_the_buttons_read_as_labels_says(pseudo):
    from gradlessons.guide import RESTART, SKIP

    assert pseudo["gradient labels"]["restart"] == f"⟦{RESTART}⟧" and pseudo["graph labels"]["skip"] == f"⟦{SKIP}⟧"
    assert pseudo["graph labels"]["apply"] == "⟦apply⟧" and pseudo["inference labels"]["run"] == "⟦run forward pass⟧"
    assert pseudo["tangent labels"]["again"] == "⟦backward() again without clearing⟧"


def test_a_prompt_that_quotes_a_control_quotes_its_translated_label(pseudo):
    finished = [t for t in pseudo["GraphExplorer guide"] if "Finished" in t][-1]
    assert "`⟦restart guide⟧`" in html.unescape(finished) or "<code>⟦restart guide⟧</code>" in finished
    assert any("click ⟦apply⟧." in step for step in pseudo["GraphExplorer steps"])
    assert any("“⟦backward() again without clearing⟧”" in step for step in pseudo["TangentExplorer steps"])
    assert any("**⟦run forward pass⟧**" in step for step in pseudo["InferenceExplorer steps"])


def test_an_explorer_built_in_english_keeps_its_guide_in_english_when_the_language_changes(tmp_path):
    """Its guide was translated when it was built: choosing a language later changes new explorers only."""
    from gradlessons.graph_explorer.state import GUIDE_STEPS, GraphExplorerState

    before = GraphExplorerState()
    with pseudo_language(str(tmp_path), packages=("gradlessons",)):
        after = GraphExplorerState()
        assert before.guide.prompt == GUIDE_STEPS[0].prompt
        assert after.guide.prompt == f"⟦{GUIDE_STEPS[0].prompt.replace('apply.', '{apply}.')}⟧".format(apply="⟦apply⟧")


def test_the_off_script_and_skip_notes_are_translated(tmp_path):
    from gradlessons.gradient_explorer.state import GradExplorerState

    with pseudo_language(str(tmp_path), packages=("gradlessons",)):
        state = GradExplorerState()
        state.step()  # off-script: step 1 asks for backward()
        assert state.guide.note.startswith("⟦That was not this step's action") and translated(state.guide.note)
        state.guide.skip()
        assert translated(state.guide.note) and translated(state.guide.heading)
        with pytest.raises(ValueError) as refused:
            state.apply("jump")
        assert translated(str(refused.value).replace("'jump'", ""))


def test_show_error_says_no_error_in_the_learners_language_and_keeps_pytorchs_message(tmp_path, capsys):
    from gradlessons.errors import show_error

    with pseudo_language(str(tmp_path), packages=("gradlessons",)):
        show_error(lambda: None)
        show_error(lambda: torch.tensor([1, 2]).requires_grad_())
    said = capsys.readouterr().out.splitlines()
    assert said[0] == "⟦no error⟧"
    assert said[1].startswith("RuntimeError: only Tensors of floating point") and not wrapped(said[1])
