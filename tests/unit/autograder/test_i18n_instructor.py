"""The instructor reads the class report and ``grade``'s summary and table in one setting's language
(issue 37): in a pseudo-language every sentence of the page, its figures and the class table comes out
wrapped, and what is left bare is the class's own data (ids, codes, exercise names, numbers, the
grader's reasons and notes, the lessons' English section headings); the CSV stays English; the
setting ``AUTOGRADER_LANGUAGE`` is checked, never guessed, and ``--lang`` overrides it; grading itself
never runs in the instructor's language.  No grading: the class report's class of four
(tests/unit/autograder/conftest.py)."""

import csv
import html.parser
import os
import re

import pytest

from autograder import codes, i18n
from autograder.grading import report as report_module
from autograder.grading.language import instructor_language
from autograder.grading.report import class_table, write_csv, write_html
from tests.i18n_pseudo import pseudo_language, wrapped

# What is not a sentence: figures, signs and the separators the page puts between data.
BARE = re.compile(r"[\s\d.,:;/()%›–✓|…-]*")


class _Text(html.parser.HTMLParser):
    """The text a reader sees (not the style sheet), each tag a space."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skip = False

    def handle_starttag(self, tag, attrs):
        self.skip = tag == "style"
        self.parts.append(" ")

    def handle_endtag(self, tag):
        self.skip = False
        self.parts.append(" ")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def page_text(page: str) -> str:
    parser = _Text()
    parser.feed(page)
    return "".join(parser.parts)


def unwrapped(text: str) -> str:
    """``text`` without its pseudo-translated pieces (a piece may hold another, a link in a sentence)."""
    while True:
        shorter = re.sub(r"⟦[^⟦⟧]*⟧", " ", text)
        if shorter == text:
            return text
        text = shorter


def the_class_data(report) -> list[str]:
    """Everything of the class that is shown as it is, longest first."""
    data = {report.assignment, *report.exercises, *report.quiz_keys, *filter(None, report.quiz_keys.values())}
    for row in report.rows:
        data |= {row.student, row.reason, *row.codes.values(), *row.reasons.values(), *row.notes, *row.review}
        data |= {codes.revisit(exercise, code) for exercise, code in row.codes.items()}
        data |= {*row.quiz, *(answer for answer in row.quiz.values() if answer)}  # questions and answers
    return sorted((d for d in data if d), key=len, reverse=True)


def left_bare(text: str, report) -> str:
    """What of ``text`` is neither wrapped, nor the class's data, nor figures and signs."""
    text = unwrapped(text)
    for data in the_class_data(report):  # whole words only: a student's "a" hides no English "a"
        text = re.sub(rf"(?<!\w){re.escape(data)}(?!\w)", " ", text)
    return BARE.sub("", text)


@pytest.fixture
def figure_labels(monkeypatch):
    """The titles and axis labels of every figure the report draws (a PNG hides them)."""
    found = []
    real = report_module._png

    def keep(fig):
        for ax in fig.axes:
            found.extend([ax.get_title(), ax.get_xlabel(), ax.get_ylabel()])
        return real(fig)

    monkeypatch.setattr(report_module, "_png", keep)
    return found


@pytest.fixture
def with_review(class_of_four):
    """The class of four, one of them with checks to review and a grading note, and a quick check."""
    bob = next(r for r in class_of_four.rows if r.student == "bob")
    bob.review = ["train_step: the update could not be decided"]
    bob.notes = ["Stopped at cell 9: output limit"]
    class_of_four.quiz_keys = {"q1": "a"}
    for row in class_of_four.graded():
        row.quiz["q1"] = None if row.student == "erin" else "b"
    return class_of_four


@pytest.fixture
def in_pseudo(with_review, figure_labels, tmp_path):
    """The page, the class table and the CSV written in the pseudo-language."""
    with pseudo_language(str(tmp_path / "pseudo")):
        write_html(with_review, str(tmp_path / "report.html"))
        write_csv(with_review, str(tmp_path / "report.csv"))
        table = class_table(with_review)
    return {"page": (tmp_path / "report.html").read_text(encoding="utf-8"), "table": table,
            "csv": (tmp_path / "report.csv").read_text(encoding="utf-8"), "labels": list(figure_labels)}  # fmt: skip


def test_every_sentence_of_the_page_is_said_in_the_instructors_language(in_pseudo, with_review):
    text = page_text(in_pseudo["page"])
    assert wrapped(text)
    assert left_bare(text, with_review) == ""
    assert '<html lang="xx">' in in_pseudo["page"]


def test_the_meanings_of_the_codes_are_translated_and_the_sections_to_read_again_stay_english(in_pseudo):
    row = re.search(r"never_clears</span>.*?</tr>", in_pseudo["page"], re.S)[0]
    assert f"⟦{codes.meaning('train_step', 'never_clears')}⟧" in row.replace("<code>", "`").replace("</code>", "`")
    assert codes.revisit("train_step", "never_clears") in row


def test_a_translated_sentence_still_escapes_the_students_values(with_review, figure_labels, tmp_path):
    with_review.rows[0].student = "<script>alert(1)</script>"
    with_review.rows[0].status = "failed"
    with pseudo_language(str(tmp_path / "pseudo")):
        write_html(with_review, str(tmp_path / "report.html"))
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_the_figures_titles_and_axes_are_translated(in_pseudo):
    labels = [label for label in in_pseudo["labels"] if label]
    assert len(labels) == 5 and all(label.startswith("⟦") and label.endswith("⟧") for label in labels)


def test_the_class_table_is_said_in_the_instructors_language(in_pseudo, with_review):
    header, *rows = in_pseudo["table"]
    assert header.split()[:2] == ["⟦student⟧", "⟦score⟧"] and header.split()[-1] == "⟦notes⟧"
    bob = next(line for line in rows if line.startswith("bob"))
    frank = next(line for line in rows if line.startswith("frank"))
    assert "⟦needs review: Stopped at cell 9" in bob and "⟦failed⟧" in frank
    for line in in_pseudo["table"]:
        assert left_bare(line, with_review) == "", line


def test_the_csv_stays_english_in_every_language(in_pseudo, with_review, tmp_path):
    assert "⟦" not in in_pseudo["csv"]
    write_csv(with_review, str(tmp_path / "english.csv"))
    assert in_pseudo["csv"] == (tmp_path / "english.csv").read_text(encoding="utf-8")
    rows = {row["student"]: row for row in csv.DictReader(in_pseudo["csv"].splitlines())}
    assert rows["erin"]["reason"] == f"train_step: {codes.meaning('train_step', 'unanswered')}"


def test_english_is_written_again_after_the_pseudo_language(in_pseudo, with_review, tmp_path):
    write_html(with_review, str(tmp_path / "after.html"))
    page = (tmp_path / "after.html").read_text(encoding="utf-8")
    assert "⟦" not in page and '<html lang="en">' in page and "What to teach next" in page
    assert not any(wrapped(line) for line in class_table(with_review))


def test_a_portuguese_page_says_so_in_its_lang_attribute(with_review, tmp_path):
    with i18n.speaking("pt_BR"):
        write_html(with_review, str(tmp_path / "report.html"))
    assert '<html lang="pt-BR">' in (tmp_path / "report.html").read_text(encoding="utf-8")


# -- the setting -----------------------------------------------------------------------------------
def test_the_instructors_language_is_the_setting_else_english():
    assert instructor_language({"AUTOGRADER_LANGUAGE": "pt_BR"}) == "pt_BR"
    assert instructor_language({"AUTOGRADER_LANGUAGE": "en"}) == "en"
    assert instructor_language({}) == "en"


@pytest.mark.parametrize("value", ["../../x", "de", "pt-BR", ""])
def test_an_unknown_language_setting_is_an_error_naming_the_allowed_ones(value):
    with pytest.raises(ValueError) as error:
        instructor_language({"AUTOGRADER_LANGUAGE": value})
    assert repr(value) in str(error.value) and "en, pt_BR" in str(error.value)


# -- the command line ------------------------------------------------------------------------------
@pytest.fixture
def umask_kept():
    """grade and report set the process's umask: put it back for the other tests."""
    before = os.umask(0o022)
    os.umask(before)
    yield
    os.umask(before)


@pytest.mark.parametrize("command", [["report", "lesson3_zeroing_grad"], ["grade", "lesson3_zeroing_grad"]])
def test_lang_takes_only_the_courses_languages(command, capsys):
    from autograder.cli import _parser

    assert _parser().parse_args([*command, "--lang", "pt_BR"]).lang == "pt_BR"
    assert _parser().parse_args(command).lang is None  # then the setting decides
    with pytest.raises(SystemExit) as stopped:
        _parser().parse_args([*command, "--lang", "../../x"])
    assert stopped.value.code == 2 and "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["report", "grade"])
def test_a_bad_setting_stops_the_command_before_it_starts(command, monkeypatch, tmp_path, capsys, umask_kept):
    from autograder.cli import main

    monkeypatch.setenv("AUTOGRADER_LANGUAGE", "../../x")
    assert main([command, "lesson3_zeroing_grad", "--course", str(tmp_path)]) == 2
    assert "AUTOGRADER_LANGUAGE='../../x' is not a language of the course" in capsys.readouterr().err
    assert os.listdir(tmp_path) == []  # nothing read, nothing written
    monkeypatch.setenv("AUTOGRADER_LANGUAGE", "de")  # --lang wins over the setting, good or bad
    assert "AUTOGRADER_LANGUAGE" not in _error_of(main, command, tmp_path, capsys)


def _error_of(main, command, course, capsys) -> str:
    main([command, "lesson3_zeroing_grad", "--course", str(course), "--lang", "en"])
    return capsys.readouterr().err


def test_grade_grades_outside_the_instructors_language_and_sums_up_inside_it(monkeypatch, capsys, umask_kept):
    """The students' feedback is written in their edition's language: only what the instructor reads
    (the summary, the class table) is in the instructor's."""
    from autograder import cli
    from autograder.grading import grade

    seen = {}

    class Summary:
        outcomes, interrupted = [], False

        def count(self, status):
            return 0

        def lines(self):
            seen["summary"] = i18n.language()
            return ["summed up"]

    class Grader:
        def __init__(self, course, assignment, **options):
            self.assignment = assignment

        def check(self, students):
            pass

        def run(self, students):
            seen["grading"] = i18n.language()
            return Summary()

    monkeypatch.setattr(grade, "Grader", Grader)
    monkeypatch.setenv("AUTOGRADER_LANGUAGE", "pt_BR")
    assert cli.main(["grade", "lesson3_zeroing_grad"]) == 0
    assert seen == {"grading": "en", "summary": "pt_BR"} and capsys.readouterr().out == "summed up\n"
