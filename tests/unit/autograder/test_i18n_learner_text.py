"""What a learner reads around a verdict speaks the learner's language: the codes' meanings, every line
the self-check prints, the quick checks' why and hint, the feedback page's headings and rows, the
graded copy's lines and the stopped-notebook errors, and ``diagnose --lang``'s message field.

Under the pseudo-language (``tests/i18n_pseudo.py``) every marked sentence comes out as ``⟦English⟧``:
a bare English word outside such a piece names a sentence the catalogue never sees.  Outside the
block, English is as it always was; the codes, the JSON fields and their order never change.

Nothing here starts torch but the two ``diagnose`` tests (one import for the module).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

import course_i18n
from autograder import checks, codes
from autograder.checks import FAILED_LINE, NotYet, _answer_hash, check_quiz, load_quiz, quiz_context
from autograder.grading import execute, feedback, score
from autograder.i18n import ENGLISH, speaking
from autograder.verdict import Verdict, seen_with
from tests.i18n_pseudo import pseudo_language, wrapped

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SPAN = re.compile(r"⟦[^⟦⟧]*⟧")
WORD = re.compile(r"[A-Za-z][A-Za-z_]{2,}")
LESSONS = sorted(name[: -len(".json")] for name in os.listdir(checks.QUIZ_DIR) if name.endswith(".json"))
SYNTAX_ERROR = (
    "No function named train_step was found: your answer cells do not define a function named train_step (a cell "
    "raised SyntaxError: invalid syntax (<In [7] of your notebook>, line 4))."
)


def bare_words(text: str) -> list[str]:
    """The words of ``text`` outside every pseudo-translated piece (pieces nest)."""
    before = None
    while text != before:
        text, before = SPAN.sub(" ", text), text
    return WORD.findall(text)


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def pseudo(tmp_path_factory):
    """A function that runs its argument in the pseudo-language.  The catalogues are compiled once for
    the module; between two calls the tests speak English, as a learner who never chose a language."""
    with pseudo_language(str(tmp_path_factory.mktemp("pseudo"))) as language, speaking(ENGLISH):

        def run(fn, *args, **kwargs):
            with speaking(language):
                return fn(*args, **kwargs)

        yield run


def _every_code() -> list[tuple[str, str]]:
    return [(e, c) for e, table in codes.MEANINGS.items() for c in table] + [("train_step", c) for c in codes.SHARED]


# -- codes.py ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("exercise", "code"), _every_code())
def test_every_code_meaning_a_learner_reads_is_in_their_language(pseudo, exercise, code):
    shown = pseudo(codes.in_words, exercise, code)
    assert wrapped(shown) and not bare_words(shown), shown
    for name in codes.named_codes(exercise, codes.meaning(exercise, code), code):
        assert f"`{name}`" in shown  # the codes a meaning names stay as they are


def test_a_meaning_in_english_is_the_tables_own_words_and_the_report_keeps_english(pseudo):
    english = codes.in_words("train_step", "never_clears")
    assert english == (
        "gradients pile up across updates (also what a fresh start shows for `clears_once`); "
        "`clears_once` means: clears once before the loop (or on the first call), then never again"
    )
    assert english == codes.explained("train_step", "never_clears")
    # The report and docs/codes.md read the English table whatever the learner's language.
    assert pseudo(codes.explained, "train_step", "never_clears") == english
    assert "⟦" not in pseudo(codes.table, ["train_step"])


def test_codes_py_loaded_by_path_as_course_py_does_is_plain_english_data():
    spec = importlib.util.spec_from_file_location("_plain_codes", os.path.join(ROOT, "autograder", "codes.py"))
    plain = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plain)
    assert plain.table(["shared"]) == codes.table(["shared"])
    assert plain.in_words("train_step", "never_clears") == codes.in_words("train_step", "never_clears")


# -- checks.py: every line the self-check prints --------------------------------------------------
def test_the_failed_line_is_in_the_learners_language_and_english_outside(pseudo):
    assert NotYet("x")._render_traceback_() == [FAILED_LINE]
    assert pseudo(NotYet("x")._render_traceback_) == [f"⟦{FAILED_LINE}⟧"]


def test_what_the_function_printed_and_its_verdict_are_in_the_learners_language(pseudo, capsys):
    printed = "\n".join(f"step {n}" for n in range(17))
    pseudo(checks._report, Verdict("train_step", "ok", seen_with("Correct.", "a linear model")), printed)
    out = capsys.readouterr().out
    assert out.startswith("⟦Your function printed:⟧\n    step 0\n")
    assert "    ⟦... (2 more lines)⟧" in out
    assert "✅ train_step: ⟦passed⟧" in out
    checks._report(Verdict("train_step", "ok", "Correct."), printed)
    english = capsys.readouterr().out
    assert english.startswith("Your function printed:\n    step 0\n") and "    ... (2 more lines)\n" in english


def test_a_failed_verdict_shows_its_code_explained_in_the_learners_language(pseudo, capsys):
    with pytest.raises(NotYet) as failed:
        pseudo(checks._report, Verdict("train_step", "never_clears", "⟦Clear the gradients.⟧"))
    out = capsys.readouterr().out
    assert "❌ train_step [never_clears]: ⟦not passed yet⟧" in out
    assert "never_clears means:" in out and not bare_words(out.replace("train_step", "").replace("never_clears", ""))
    assert str(failed.value).startswith("train_step: never_clears: ")  # the reports' evalue keeps its form


def test_a_check_in_a_grading_kernel_says_so_in_the_learners_language(pseudo, capsys, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_CHECKS", "outside")
    with pytest.raises(NotYet):
        pseudo(checks.check_train_step, lambda *a: None)
    assert capsys.readouterr().out == "⟦train_step: checked by the grader outside the notebook.⟧\n"
    with pytest.raises(NotYet):
        checks.check_train_step(lambda *a: None)
    assert capsys.readouterr().out == "train_step: checked by the grader outside the notebook.\n"


def _right_and_wrong(lesson: str, question: str) -> tuple[str, str]:
    item = load_quiz(lesson)[question]
    right = [c for c in item["choices"] if _answer_hash(lesson, question, c) == item["answer_sha256"]]
    return right[0], next(c for c in item["choices"] if c != right[0])


@pytest.mark.parametrize(("lesson", "question"), [(lesson, q) for lesson in LESSONS for q in load_quiz(lesson)])
def test_every_quick_check_line_with_its_why_and_hint_is_in_the_learners_language(pseudo, capsys, lesson, question):
    item = load_quiz(lesson)[question]
    right, wrong = _right_and_wrong(lesson, question)
    pseudo(check_quiz, lesson, question, right)
    out = flat(capsys.readouterr().out)
    assert out.startswith("⟦✅") and flat(f"⟦{item['why']}⟧") in out and not bare_words(out)
    with pytest.raises(NotYet):
        pseudo(check_quiz, lesson, question, wrong)
    out = flat(capsys.readouterr().out)
    assert out.startswith("⟦❌") and flat(f"⟦{item['hint']}⟧") in out and not bare_words(out)
    with pytest.raises(NotYet):
        pseudo(check_quiz, lesson, question, "zz")
    out = flat(capsys.readouterr().out)
    assert out.startswith(f"⟦❌ {question}: not answered yet.") and out.endswith("⟧")
    # English, outside the block: the lines as they always were.
    check_quiz(lesson, question, right)
    assert flat(capsys.readouterr().out) == flat(f"✅ {question}: right. {item['why']}")
    with pytest.raises(NotYet):
        check_quiz(lesson, question, wrong)
    assert flat(capsys.readouterr().out) == flat(f"❌ {question}: not quite yet. Hint: {item['hint']}")


def test_every_quick_check_text_is_in_the_gradebox_template_under_its_context():
    template = course_i18n.package_template("gradebox")  # the quick checks are the job side's
    for lesson in LESSONS:
        for question, item in load_quiz(lesson).items():
            for part in ("why", "hint"):
                entry = template.get(item[part], context=quiz_context(lesson, question, part))
                assert entry is not None, (lesson, question, part)
                assert entry.locations[0][0] == f"gradebox/quizzes/{lesson}.json" and entry.locations[0][1]
                assert question in entry.auto_comments[0]


# -- the feedback page -------------------------------------------------------------------------------
def _student(code: str, message: str, passed: bool = False, stopped: bool = False) -> nbformat.NotebookNode:
    outputs = [nbformat.v4.new_output("error", ename="NotRun", evalue="", traceback=[])] if stopped else []
    found = [{"exercise": "train_step", "passed": passed, "code": code, "message": message}]
    cell = new_code_cell("check_train_step(train_step)", metadata={"autograder": {"checks": found}}, outputs=outputs)
    return new_notebook(cells=[cell])


def _page(nb) -> tuple[str, str]:
    done, _resources = feedback.CheckSummary().preprocess(nb, {})
    return done.cells[0].source, done.cells[1].outputs[0].text


def _feedback_cases():
    return {
        "correct": ("ok", "⟦Correct.⟧", True, False),
        "never_clears": ("never_clears", "⟦Clear the gradients first.⟧ ⟦Call zero_grad() at the start.⟧", False, True),
        "syntax_error": ("error", SYNTAX_ERROR, False, False),
    }


@pytest.mark.parametrize("student", sorted(_feedback_cases()))
def test_every_heading_and_row_of_the_feedback_page_is_in_the_learners_language(pseudo, student):
    summary, cell = pseudo(_page, _student(*_feedback_cases()[student]))
    # The page's own words are all wrapped; what remains bare is the exercise's name and its code.
    for text in (summary, cell):
        leftover = [w for w in bare_words(text) if w not in {"train_step", "never_clears", "error"}]
        assert not leftover, (student, leftover, text)
    assert summary.startswith("## ⟦Your results at a glance⟧\n\n| ⟦exercise | result | code | what to do⟧ |")
    assert "⟦Each test cell below says more;" in summary
    if student == "correct":
        assert "| ✅ ⟦passed⟧ |" in summary and "⟦nothing: well done⟧" in summary
    if student == "never_clears":
        assert "⟦What the codes mean:⟧" in summary and cell.startswith("⟦(Your notebook was stopped")
        assert "⟦To fix:⟧ ⟦Clear the gradients first.⟧" in cell
    if student == "syntax_error":  # found by Python's "(<cell>, line N)", not by an English word
        fix = "fix that cell, run it, then run the test cells again."
        todo = f"⟦SyntaxError on line 4 of In [7] of your notebook: {fix}⟧"
        assert f"| {todo} |" in summary and todo in flat(cell)


def test_what_the_grader_saw_is_in_the_learners_language(pseudo):
    verdict = {"exercise": "train_step", "passed": False, "code": "never_clears", "fix": "⟦f⟧", "what": "⟦w⟧"}
    assert "   ⟦What the grader saw: ⟦w⟧⟧\n" in pseudo(feedback.verdict_text, [verdict], False)
    verdict = {**verdict, "fix": "Clear them.", "what": "They piled up."}
    assert "   What the grader saw: They piled up.\n" in feedback.verdict_text([verdict], False)


def test_an_error_the_judge_wrote_in_the_learners_language_gets_its_fix_in_that_language(pseudo):
    def judged_and_shown():
        message = feedback._("Your function raised {kind}: {message}").format(kind="ZeroDivisionError", message="x")
        return _page(_student("error", message))

    summary, _cell = pseudo(judged_and_shown)
    assert "| ⟦ZeroDivisionError raised: fix that cell, run it, then run the test cells again.⟧ |" in summary
    summary, _cell = _page(_student("error", "Your function raised ZeroDivisionError: x"))
    assert "| ZeroDivisionError raised: fix that cell, run it, then run the test cells again. |" in summary


def test_the_feedback_pages_english_is_as_it_was():
    message = "Gradients piled up. Call zero_grad() at the start."
    summary, cell = _page(_student("never_clears", message, stopped=True))
    assert summary.startswith("## Your results at a glance\n\n| exercise | result | code | what to do |\n")
    assert "| `train_step` | ❌ not passed yet | `never_clears` | Call zero_grad() at the start. |" in summary
    assert "\nWhat the codes mean:\n" in summary and cell.startswith("(Your notebook was stopped before this cell ran;")
    assert "   To fix: Call zero_grad() at the start.\n   What the grader saw: Gradients piled up.\n" in cell


def test_the_case_a_fix_was_seen_with_is_cut_in_the_language_it_was_written_in(pseudo):
    def seen():
        return feedback.split_fix(seen_with("⟦Clear the gradients.⟧", "a linear model (MSE), SGD"))

    fix, what = pseudo(seen)
    assert "a linear model" not in fix and "⟦Clear the gradients" in fix


def test_the_hidden_tests_placeholder_is_in_the_learners_language(pseudo):
    cell = new_code_cell("x = 1\n### BEGIN HIDDEN TESTS\ncheck(1)\n### END HIDDEN TESTS")
    done, _resources = pseudo(feedback.HideHiddenTests().preprocess_cell, cell, {}, 0)
    assert done.source == f"x = 1\n⟦{feedback.PLACEHOLDER}⟧"


# -- the graded copy: score.py and execute.py ---------------------------------------------------------
def _scored_unanswered(stopped: bool):
    outputs = [execute.error_output(execute.NOT_RUN, "")] if stopped else []
    cell = new_code_cell("check_train_step(train_step)", outputs=outputs, metadata={"nbgrader": {"grade": True}})
    found = [{"exercise": "train_step", "function": "train_step", "start": "fresh", "seed": 0, "hidden": False}]
    score.ScoreChecks()._write(cell, 0, found, [], None, None, {"train_step"}, {})
    return cell


def test_the_graded_copys_lines_are_in_the_learners_language_and_its_metadata_keeps_codes(pseudo):
    cell = pseudo(_scored_unanswered, True)
    text = cell.outputs[0].text
    assert text.startswith("⟦Checked by the grader on your answer cells, outside your notebook:⟧\n⟦(The notebook")
    assert "❌ train_step [unanswered]: ⟦not passed yet⟧" in text
    assert not [w for w in bare_words(text) if w not in {"train_step", "unanswered"}], text
    assert cell.outputs[1].traceback == [f"⟦{FAILED_LINE}⟧"]
    assert cell.metadata["autograder"]["checks"][0]["code"] == "unanswered"
    english = _scored_unanswered(True)
    assert english.outputs[0].text.startswith("Checked by the grader on your answer cells, outside your notebook:\n")
    assert english.outputs[1].traceback == [FAILED_LINE]
    assert english.metadata["autograder"]["checks"][0]["message"] == score.UNANSWERED.format(name="train_step")


def test_an_answer_cells_label_stays_english_as_cell_labels_are(pseudo):
    """The label is the code's file name, quoted in the English message the report reads."""
    cell = new_code_cell("", metadata={"nbgrader": {"grade_id": "train_step", "solution": True}})
    assert pseudo(score._seen_as, cell, 3) == score._seen_as(cell, 3) == "your train_step answer cell"
    assert pseudo(score._seen_as, new_code_cell(""), 3) == "cell 4"


class _Gone:
    """A kernel manager already stopped: what ``_stop`` asks of one."""

    def kill_kernel(self):
        pass


def _stopped_then_next(shown_in):
    """A cell stopped by the cell time limit, then the cell below it: their outputs, and the note."""
    ex = execute.SandboxedExecute()
    ex.km, ex._resources, ex._stopped, ex._shared, ex._cell_timeout = _Gone(), {}, "", range(0), 30
    first, below = new_code_cell("while True: pass"), new_code_cell("x = 1")
    shown_in(lambda: ex._stop(first, *execute.reason(execute.CELL_TOO_LONG, seconds=30)))
    shown_in(lambda: ex.preprocess_cell(below, {}, 1))
    return first.outputs[-1], below.outputs[0], ex._resources


def test_a_stopped_notebook_says_why_in_the_learners_language_and_the_notes_stay_english(pseudo):
    stopped, below, resources = _stopped_then_next(pseudo)
    assert stopped.ename == "KernelStopped" and below.ename == "NotRun"
    assert stopped.evalue == "⟦Grading stopped the notebook here because {why}.⟧".format(
        why="⟦this cell ran longer than its limit of 30 s⟧"
    )
    assert below.evalue.startswith("⟦This cell did not run: grading stopped the notebook at an earlier cell because ⟦")
    assert "this cell ran longer than its limit of 30 s; the cells below did not run." in json.dumps(resources)
    assert "⟦" not in json.dumps(resources)
    stopped, below, _resources = _stopped_then_next(lambda fn: fn())
    assert stopped.evalue == "Grading stopped the notebook here because this cell ran longer than its limit of 30 s."
    assert below.evalue == (
        "This cell did not run: grading stopped the notebook at an earlier cell because this cell ran longer than "
        "its limit of 30 s."
    )


def test_an_output_left_out_says_so_in_the_learners_language(pseudo):
    message = {"msg_type": "stream", "content": {"name": "stdout", "text": "x"}}
    left_out = pseudo(execute.too_large, message, 3 * 2**20, 2**20)["content"]["text"]
    assert left_out == "⟦[an output of 3.0 MiB was left out: one output may hold at most 1 MiB]⟧\n"
    english = execute.too_large(message, 3 * 2**20, 2**20)["content"]["text"]
    assert english == "[an output of 3.0 MiB was left out: one output may hold at most 1 MiB]\n"


# -- diagnose --lang ------------------------------------------------------------------------------------
def test_an_unknown_language_is_a_clear_cli_error(capsys):
    from autograder.cli import main

    for value in ("de", "../../x", ""):
        with pytest.raises(SystemExit) as stopped:
            main(["diagnose", "train_step", "nothing.py", "--lang", value])
        assert stopped.value.code == 2
        assert "--lang: invalid choice" in capsys.readouterr().err


@pytest.fixture
def no_sandbox(monkeypatch):
    """diagnose without its judging process and warm server: files that do not exist need neither."""
    import autograder.cli
    import autograder.host.client
    import autograder.judge.pool

    monkeypatch.setattr(autograder.judge.pool, "shared_pool", lambda *a, **k: None)
    monkeypatch.setattr(autograder.host.client, "shared_server", lambda *a, **k: None)
    monkeypatch.setattr(autograder.cli, "_start_server", lambda: None)


def test_diagnose_lang_changes_the_message_alone_and_each_files_thread_speaks_it(pseudo, capsys, no_sandbox):
    from autograder.cli import main

    files = ["missing-1.py", "missing-2.py"]
    assert main(["diagnose", "train_step", *files, "--jobs", "2"]) == 0
    english = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert pseudo(main, ["diagnose", "train_step", *files, "--jobs", "2", "--lang", "xx"]) == 0
    translated = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (
        [list(d) for d in translated]
        == [list(d) for d in english]
        == [["file", "exercise", "passed", "code", "message"]] * 2
    )
    for before, after, path in zip(english, translated, files):
        assert {k: v for k, v in after.items() if k != "message"} == {k: v for k, v in before.items() if k != "message"}
        assert before["message"] == f"There is no file at {path}."
        assert after["message"] == f"⟦There is no file at {path}.⟧"
    with speaking(ENGLISH):
        assert main(["diagnose", "train_step", files[0], "--lang", "en"]) == 0
    assert json.loads(capsys.readouterr().out) == english[0]


@pytest.mark.parametrize("where", ["", "line 4 of In [7] of your notebook"])
@pytest.mark.parametrize("message", ["", "division by zero"])
def test_the_feedback_page_knows_every_sentence_the_judge_reports_a_raise_with(pseudo, where, message):
    """``feedback.RAISED`` repeats the msgids of ``judge.error_verdict``: a change there is caught here."""
    from autograder.judge import error_verdict

    error = {"type": "ZeroDivisionError", "message": message, "where": where}
    for say in (pseudo, lambda fn, *a: fn(*a)):
        written = say(error_verdict, "train_step", error).message
        assert say(feedback.raised_in, written) == ("ZeroDivisionError", "", ""), written
