"""export --format canvas|moodle: a gradebook file in the column layout the LMS's import documents,
with nbgrader export's totals."""

import csv
import os
import shutil

import pytest

from autograder.cli import main
from autograder.grading.export import SafeCsvExport
from tests.unit.autograder.gradebook_class import COURSE_ID, LESSON, db_url, make_class, set_late_penalty, set_score

PEOPLE = {"ada": ("Ada", "Lovelace", "ada@uni.example"), "bob": ("Bob", "=Tables", "bob@uni.example"),
          "cy": ("Cy", "Young", None), "dee": ("Dee", "Dee", "dee@uni.example")}  # fmt: skip


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory) -> str:
    """ada 7, bob 10, cy 4 (no email), dee no submission, out of 10; made once."""
    folder = str(tmp_path_factory.mktemp("class") / "course")
    return make_class(folder, {"ada": 7, "bob": 10, "cy": 4, "dee": None}, people=PEOPLE)


@pytest.fixture
def course(graded_class, tmp_path, monkeypatch) -> str:
    monkeypatch.delenv("AUTOGRADER_DB_URL", raising=False)
    return shutil.copytree(graded_class, str(tmp_path / "course"))


def export(course: str, capsys, *args: str) -> tuple[list[list[str]], str]:
    assert main(["export", LESSON, "--course", course, *args]) == 0
    out = capsys.readouterr().out
    path = out.strip().splitlines()[-1].removeprefix("wrote ")
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f)), out


def test_canvas_columns_and_title(course, capsys):
    rows, out = export(course, capsys, "--format", "canvas", "--title", "Lesson 3", "--lms-id", "31")
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lesson 3 (31)"]
    assert rows[1] == ["    Points Possible", "", "", "", "", "10.0"]
    assert rows[2:] == [  # by last name, as nbgrader lists students
        ["'=Tables, Bob", "", "", "bob", "", "10.0"],  # a name that starts like a formula stays text
        ["Dee, Dee", "", "", "dee", "", ""],  # no submission: no grade
        ["Lovelace, Ada", "", "", "ada", "", "7.0"],
        ["Young, Cy", "", "", "cy", "", "4.0"],
    ]
    assert "no --roster: Canvas will match students by SIS Login ID = the nbgrader student id" in out
    assert out.strip().endswith(os.path.join(course, "reports", f"{LESSON}-canvas.csv"))


def test_canvas_ids_from_roster(course, tmp_path, capsys):
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,canvas_id,sis_user_id,sis_login_id,section\n"
                      "ada,Ada Lovelace,1001,S-1,alovelace,Section 01\n")  # fmt: skip
    rows, out = export(course, capsys, "--format", "canvas", "--roster", str(roster))
    assert rows[0][-1] == LESSON  # no Canvas id: Canvas makes a new assignment of that name
    assert ["Ada Lovelace", "1001", "S-1", "alovelace", "Section 01", "7.0"] in rows
    assert "no --roster" not in out


def test_moodle_email_and_grade(course, capsys):
    rows, out = export(course, capsys, "--format", "moodle", "--title", "Lesson 3")
    assert rows == [["Email address", "Lesson 3"], ["bob@uni.example", "10.0"], ["dee@uni.example", ""],
                    ["ada@uni.example", "7.0"]]  # fmt: skip
    assert "left out, no Email address known (add it to the roster): cy" in out


def test_moodle_matches_on_usernames(course, tmp_path, capsys):
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,username\ncy,cyoung\n")
    rows, _ = export(course, capsys, "--format", "moodle", "--moodle-id", "username", "--roster", str(roster))
    assert rows[0] == ["Username", LESSON]
    assert ["cyoung", "4.0"] in rows and ["ada", "7.0"] in rows


def test_missing_as_zero_writes_zero(course, capsys):
    rows, _ = export(course, capsys, "--format", "moodle", "--missing-as-zero")
    assert ["dee@uni.example", "0.0"] in rows


def test_nbgrader_totals_with_penalty(course, tmp_path, capsys):
    set_late_penalty(course, "ada", 2)
    set_score(course, "bob", 9.5)
    rows, _ = export(course, capsys, "--format", "canvas", "--output", str(tmp_path / "canvas.csv"))
    from nbgrader.api import Gradebook

    with Gradebook(db_url(course), COURSE_ID) as gb:
        SafeCsvExport(to=str(tmp_path / "nbgrader.csv"), assignment=[LESSON]).export(gb)
    with open(tmp_path / "nbgrader.csv", newline="") as f:
        nbgrader = {r["student_id"]: r["score"] for r in csv.DictReader(f)}
    canvas = {r[3]: r[5] for r in rows[2:]}
    assert canvas == {"ada": "5.0", "bob": "9.5", "cy": "4.0", "dee": ""}
    assert {k: v for k, v in nbgrader.items() if k != "dee"} == {k: v for k, v in canvas.items() if k != "dee"}


def test_manual_grading_left_empty(course, capsys):
    set_score(course, "ada", 7, manual=True)
    rows, out = export(course, capsys, "--format", "canvas")
    assert ["Lovelace, Ada", "", "", "ada", "", ""] in rows
    assert "left empty, waiting for manual grading: ada" in out


def test_roster_without_ids_refused(course, tmp_path, capsys):
    roster = tmp_path / "roster.csv"
    roster.write_text("Student,ID\nAda,1001\n")
    assert main(["export", LESSON, "--course", course, "--format", "canvas", "--roster", str(roster)]) == 2
    assert "the roster needs a student_id column (the nbgrader ids); it has Student, ID" in capsys.readouterr().err
