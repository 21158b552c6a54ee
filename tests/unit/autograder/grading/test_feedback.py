"""The feedback view on its own (no grading): the summary on top, each verdict once with the fix
first and no grader exception name, whatever the test cell printed, and every traceback cut."""

import re

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from autograder import codes
from autograder.grading.feedback import SUMMARY_ID, CheckSummary, HideHiddenTests, split_fix

MESSAGE = (
    "Gradients pile up: each step() saw the gradients of all batches so far added together, because nothing "
    "cleared them. Call optimizer.zero_grad() at the start of every call."
)


def _check(seen: str, passed=False, code="never_clears", exercise="train_step", message=MESSAGE) -> dict:
    return {"exercise": exercise, "passed": passed, "code": code, "message": f"{message[:-1]} (seen with {seen})."}


def _graded() -> nbformat.NotebookNode:
    test = new_code_cell("check_train_step(train_step)", metadata={"autograder": {"checks": [
        _check("a linear model with MSE loss, SGD"), _check("a small leaky-ReLU network (L1 loss), Adam"),
    ]}})  # fmt: skip
    # today's output: the verdict per seed, then the error; tomorrow's may differ: the view does not read it
    test.outputs = [
        new_output("stream", name="stdout", text="❌ train_step ...\n❌ train_step ...\n"),
        new_output("error", ename="NotYet", evalue="train_step: never_clears: ...", traceback=["..."]),
    ]
    ok = new_code_cell("check_manual_sgd_step(manual_sgd_step)", metadata={"autograder": {"checks": [
        _check("x", passed=True, code="ok", exercise="manual_sgd_step", message="Correct: every tensor moved."),
    ]}})  # fmt: skip
    try_it = new_code_cell("train_step(model)")
    lines = ["----", "Cell In[21], line 8", "NameError: name 'train_step' is not defined"]
    error = "name 'train_step' is not defined"
    try_it.outputs = [new_output("error", ename="NameError", evalue=error, traceback=lines)]
    return new_notebook(cells=[new_markdown_cell("# Lesson 3"), try_it, test, ok])


def test_split_fix_drops_scenario():
    fix, what = split_fix(_check("a linear model (MSE), SGD")["message"])
    assert fix == "Call optimizer.zero_grad() at the start of every call."
    assert what.startswith("Gradients pile up") and "seen with" not in what


def test_summary_first_no_repeats():
    """Each verdict once, without the exception name."""
    nb, _ = CheckSummary().preprocess(_graded(), {})
    assert nb.cells[0].id == SUMMARY_ID
    summary = nb.cells[0].source
    assert "| `train_step` | ❌ not passed yet | `never_clears` | Call optimizer.zero_grad()" in summary
    assert "| `manual_sgd_step` | ✅ passed | `ok` |" in summary
    [output] = nb.cells[3].outputs
    assert output.output_type == "stream" and "NotYet" not in output.text
    assert output.text.count("❌ train_step") == 1
    assert output.text.index("To fix: Call optimizer.zero_grad()") < output.text.index("Gradients pile up")
    again, _ = CheckSummary().preprocess(nb, {})  # the formgrader and the feedback may both run it
    assert [c.get("id") for c in again.cells].count(SUMMARY_ID) == 1


def test_tracebacks_cut_to_last_line():
    nb, _ = HideHiddenTests().preprocess(_graded(), {})
    assert nb.cells[1].outputs[0].traceback == ["NameError: name 'train_step' is not defined"]


SYNTAX_ERROR = (
    "No function named train_step was found: your answer cells do not define a function named train_step (a cell "
    "raised SyntaxError: invalid syntax (<In [7] of your notebook>, line 4))."
)
BLANK = "Not answered yet: the answer cell of train_step is still as it was handed out."


def _student(code: str, message: str, passed: bool = False) -> nbformat.NotebookNode:
    checks = [{"exercise": "train_step", "passed": passed, "code": code, "message": message}]
    return new_notebook(
        cells=[new_code_cell("check_train_step(train_step)", metadata={"autograder": {"checks": checks}})]
    )


CLASS = {
    "correct": ("ok", "Correct: every optimizer.step() saw exactly the current batch's gradient.", True),
    "never_clears": ("never_clears", MESSAGE, False),
    "syntax_error": ("error", SYNTAX_ERROR, False),
    "blank": ("unanswered", BLANK, False),
}


@pytest.mark.parametrize("student", sorted(CLASS))
def test_every_code_in_a_students_feedback_is_explained_there(student):
    code, message, passed = CLASS[student]
    nb, _ = CheckSummary().preprocess(_student(code, message, passed), {})
    summary, shown = nb.cells[0].source, nb.cells[1].outputs[0].text
    assert f"`{code}`" in summary
    if passed:
        assert "What the codes mean" not in summary and "means:" not in shown
    else:
        assert f"- `{code}` (train_step): {codes.explained('train_step', code)}" in summary
        assert f"{code} means:" in shown


def test_never_clears_explains_the_clears_once_it_names():
    nb, _ = CheckSummary().preprocess(_student(*CLASS["never_clears"]), {})
    assert "`clears_once` means: clears once before the loop" in nb.cells[0].source


def test_a_syntax_error_is_named_by_the_cell_the_student_sees():
    nb, _ = CheckSummary().preprocess(_student(*CLASS["syntax_error"]), {})
    todo = "SyntaxError on line 4 of In [7] of your notebook: fix that cell, run it, then run the test cells again."
    assert f"| {todo} |" in nb.cells[0].source
    assert f"To fix: {todo}" in " ".join(nb.cells[1].outputs[0].text.split())


def _judge_messages():
    """Every fix a judge writes that does not need a record to word it: (module, key, message)."""
    import importlib
    import pkgutil

    import autograder.judge

    shared = [info.name for info in pkgutil.walk_packages(autograder.judge.__path__, "autograder.judge.")]
    for name in shared + [module.__name__ for module in autograder.judge.JUDGES.values()]:
        messages = getattr(importlib.import_module(name), "MESSAGES", None)
        for key, value in (messages or {}).items() if isinstance(messages, dict) else ():
            if callable(value):
                try:
                    value = value(None)
                except (TypeError, AttributeError, KeyError, IndexError):
                    continue  # worded from the record: its fix is checked by the judge's own tests
            if isinstance(value, str):
                yield name, key, value


def test_every_fix_names_the_thing_to_change():
    """The fix is shown alone ("To fix: ..."), without the sentence before it: "Clear them" or "Skip it"
    would leave the student to guess what."""
    found = list(_judge_messages())
    assert len(found) > 50
    vague = [(m, k, split_fix(v)[0]) for m, k, v in found if re.match(r"\W*\w+ (it|them|this|that)\b", split_fix(v)[0])]
    assert not vague
