"""A CSV cell a spreadsheet opens as text, whatever blank or lookalike sign comes before the formula.

Beside autograder/grading/csv_export.py (spreadsheet_safe); also tries the class report's CSV."""

import csv

import pytest

from autograder.grading.csv_export import spreadsheet_safe
from autograder.grading.report import ClassReport, StudentRow, write_csv

HIDDEN = [
    ' =HYPERLINK("http://x","y")',  # a leading space
    "\n=1+1",  # a line break
    "  \r\n@SUM(A1)",
    "\u3000=cmd|' /C calc'!A0",  # an ideographic space
    "\u00a0-2+3",  # a no-break space
]
FULLWIDTH = ["\uff1d1+1", "\uff0b1+1", "\uff0d2+3", "\uff20SUM(A1)", " \uff1d1"]


@pytest.mark.parametrize("text", HIDDEN, ids=["space", "newline", "crlf", "ideographic", "nbsp"])
def test_a_formula_after_leading_whitespace_is_quoted(text):
    assert spreadsheet_safe(text) == "'" + text


@pytest.mark.parametrize("text", FULLWIDTH, ids=["equals", "plus", "minus", "at", "space-equals"])
def test_a_fullwidth_formula_sign_is_quoted(text):
    assert spreadsheet_safe(text) == "'" + text


def test_a_sign_that_folds_to_a_trigger_under_nfkc_is_quoted():
    assert spreadsheet_safe("\ufe66A1") == "'\ufe66A1"  # SMALL EQUALS SIGN


@pytest.mark.parametrize("number", ["-1.5", "-3", "+2", "-1e5", "0.5", "-.5"])
def test_a_negative_number_stays_a_number(number):
    assert spreadsheet_safe(number) == number


def test_ordinary_text_and_numbers_are_left_alone():
    for value in ("alice", "a=b", "José", "", "  ", "never_clears", 3, -1.5):
        assert spreadsheet_safe(value) == value


def test_the_class_reports_csv_quotes_a_hidden_formula_in_every_column(tmp_path):
    row = StudentRow(" =evil()", "graded", 0.0, 6.0, codes={"train_step": "\uff1dcode()"},
                     notes=["\n=note()"], review=["\u3000@review()"])  # fmt: skip
    path = tmp_path / "report.csv"
    write_csv(ClassReport("lesson3_zeroing_grad", ["train_step"], [row]), str(path))
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows[0]["student"] == "' =evil()" and rows[0]["train_step"] == "'\uff1dcode()"
    assert rows[0]["notes"] == "'\n=note()" and rows[0]["needs_review"] == "'\u3000@review()"


# ---- CSV a spreadsheet does not run -------------------------------------------------------------


def test_formulas_marked_as_text():
    for formula in ('=HYPERLINK("http://x","y")', "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx"):
        assert spreadsheet_safe(formula) == "'" + formula
    assert spreadsheet_safe("alice") == "alice" and spreadsheet_safe(-1.5) == -1.5 and spreadsheet_safe(3) == 3


def test_nbgrader_export_is_quoted(tmp_path):
    from nbgrader.api import Gradebook

    from autograder.grading.csv_export import SafeCsvExport

    db = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(db) as gb:
        gb.add_assignment("lesson3_zeroing_grad")
        gb.add_student('=HYPERLINK("http://evil","x")', first_name="Ann, the first", last_name='O"Neil')
        exporter = SafeCsvExport(to=str(tmp_path / "grades.csv"))
        exporter.export(gb)
    with open(tmp_path / "grades.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows[0]["student_id"] == '\'=HYPERLINK("http://evil","x")'
    assert rows[0]["first_name"] == "Ann, the first" and rows[0]["last_name"] == 'O"Neil'
    assert rows[0]["score"] == "0.0"
