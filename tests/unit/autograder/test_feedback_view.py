"""The feedback view on its own (no grading): the summary on top, each verdict once with the fix
first and no grader exception name, whatever the test cell printed, and every traceback cut."""

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

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
