"""export --format canvas|moodle: a gradebook file in the column layout the LMS's import documents,
with nbgrader export's totals."""

import csv
import os
import re
import shlex

import pytest

from autograder.cli import main
from autograder.grading.csv_export import SafeCsvExport
from tests.conftest import ROOT
from tests.unit.autograder.grading.gradebook_class import (
    COURSE_ID,
    LESSON,
    db_url,
    make_class,
    set_late_penalty,
    set_score,
)


def export(course: str, capsys, *args: str, status: int = 0) -> tuple[list[list[str]], str]:
    assert main(["export", LESSON, "--course", course, *args]) == status
    out = capsys.readouterr().out
    wrote = next(line for line in out.splitlines() if line.startswith("wrote "))
    path = wrote.removeprefix("wrote ").rsplit(" (", 1)[0]
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f)), out


def test_canvas_columns_and_title(graded_course, capsys):
    rows, out = export(graded_course, capsys, "--format", "canvas", "--title", "Lesson 3", "--lms-id", "31")
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lesson 3 (31)"]
    assert rows[1] == ["    Points Possible", "", "", "", "", "10.0"]
    assert rows[2:] == [  # by student id, the same order at every export
        ["Lovelace, Ada", "", "", "ada", "", "7.0"],
        ["'=Tables, Bob", "", "", "bob", "", "10.0"],  # a name that starts like a formula stays text
        ["Young, Cy", "", "", "cy", "", "4.0"],
        ["Dee, Dee", "", "", "dee", "", ""],  # no submission: no grade
    ]
    assert "no --roster: Canvas will match students by SIS Login ID = the nbgrader student id" in out
    assert out.strip().endswith(
        f"wrote {os.path.join(graded_course, 'reports', f'{LESSON}-canvas.csv')} (4 of 4 students)"
    )


def test_canvas_ids_from_roster(graded_course, tmp_path, capsys):
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,canvas_id,sis_user_id,sis_login_id,section\n"
                      "ada,Ada Lovelace,1001,S-1,alovelace,Section 01\n")  # fmt: skip
    rows, out = export(graded_course, capsys, "--format", "canvas", "--roster", str(roster))
    assert rows[0][-1] == LESSON  # no Canvas id: Canvas makes a new assignment of that name
    assert ["Ada Lovelace", "1001", "S-1", "alovelace", "Section 01", "7.0"] in rows
    assert "no --roster" not in out


def test_moodle_email_and_grade(graded_course, capsys):
    rows, out = export(graded_course, capsys, "--format", "moodle", "--title", "Lesson 3", status=3)
    assert rows == [["Email address", "Lesson 3"], ["ada@uni.example", "7.0"], ["bob@uni.example", "10.0"],
                    ["dee@uni.example", ""]]  # fmt: skip
    assert "left out 1 of 4 students, no Email address known" in out


def test_moodle_matches_on_usernames(graded_course, tmp_path, capsys):
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,username\ncy,cyoung\n")
    rows, _ = export(graded_course, capsys, "--format", "moodle", "--moodle-id", "username", "--roster", str(roster))
    assert rows[0] == ["Username", LESSON]
    assert ["cyoung", "4.0"] in rows and ["ada", "7.0"] in rows


def test_missing_as_zero_writes_zero(graded_course, capsys):
    rows, _ = export(graded_course, capsys, "--format", "moodle", "--missing-as-zero", status=3)
    assert ["dee@uni.example", "0.0"] in rows


def test_nbgrader_totals_with_penalty(graded_course, tmp_path, capsys):
    set_late_penalty(graded_course, "ada", 2)
    set_score(graded_course, "bob", 9.5)
    rows, _ = export(graded_course, capsys, "--format", "canvas", "--output", str(tmp_path / "canvas.csv"))
    from nbgrader.api import Gradebook

    with Gradebook(db_url(graded_course), COURSE_ID) as gb:
        SafeCsvExport(to=str(tmp_path / "nbgrader.csv"), assignment=[LESSON]).export(gb)
    with open(tmp_path / "nbgrader.csv", newline="") as f:
        nbgrader = {r["student_id"]: r["score"] for r in csv.DictReader(f)}
    canvas = {r[3]: r[5] for r in rows[2:]}
    assert canvas == {"ada": "5.0", "bob": "9.5", "cy": "4.0", "dee": ""}
    assert {k: v for k, v in nbgrader.items() if k != "dee"} == {k: v for k, v in canvas.items() if k != "dee"}


def test_manual_grading_left_empty(graded_course, capsys):
    set_score(graded_course, "ada", 7, manual=True)
    rows, out = export(graded_course, capsys, "--format", "canvas")
    assert ["Lovelace, Ada", "", "", "ada", "", ""] in rows
    assert "left empty, waiting for manual grading: ada" in out


def test_roster_without_ids_refused(graded_course, tmp_path, capsys):
    roster = tmp_path / "roster.csv"
    roster.write_text("Student,ID\nAda,1001\n")
    assert main(["export", LESSON, "--course", graded_course, "--format", "canvas", "--roster", str(roster)]) == 2
    assert "the roster needs a student_id column (the nbgrader ids); it has Student, ID" in capsys.readouterr().err


def run(course: str, capsys, *args: str) -> tuple[int, str, str]:
    status = main(["export", LESSON, "--course", course, *args])
    done = capsys.readouterr()
    return status, done.out, done.err


def test_a_moodle_export_that_leaves_everyone_out_fails_and_names_the_option(graded_course, tmp_path, capsys):
    """The README's command on a class whose gradebook has no emails: no file, and the way out."""
    target = tmp_path / "moodle.csv"
    status, out, err = run(
        graded_course, capsys, "--format", "moodle", "--moodle-id", "idnumber", "--output", str(target)
    )
    assert status == 2
    assert not target.exists()  # no header-only file passed off as an export
    assert "every student (4) left out: no ID number known" in err
    assert "--moodle-id username" in err and "--roster" in err and "nothing written" in err
    assert "wrote" not in out


def test_a_moodle_export_by_email_of_a_class_without_emails_fails(graded_course, capsys):

    bare = make_class(
        graded_course + "-bare", {"ada": 7, "bob": 10}, people={"ada": ("Ada", "L", None), "bob": ("B", "T", None)}
    )
    status, _, err = run(bare, capsys, "--format", "moodle")
    assert status == 2
    assert "every student (2) left out: no Email address known" in err
    assert "--moodle-id username" in err
    assert not os.path.exists(os.path.join(bare, "reports", f"{LESSON}-moodle.csv"))


def test_a_failed_export_keeps_the_file_of_the_run_before(graded_course, tmp_path, capsys):
    target = tmp_path / "moodle.csv"
    assert run(graded_course, capsys, "--format", "moodle", "--moodle-id", "username", "--output", str(target))[0] == 0
    before = target.read_bytes()
    assert run(graded_course, capsys, "--format", "moodle", "--moodle-id", "idnumber", "--output", str(target))[0] == 2
    assert target.read_bytes() == before


def test_a_moodle_export_that_leaves_some_out_says_who_at_the_end_and_exits_3(graded_course, capsys):
    status, out, _ = run(graded_course, capsys, "--format", "moodle")
    assert status == 3
    last = out.strip().splitlines()
    assert last[-2].startswith("wrote ") and "3 of 4 students" in last[-2]
    assert last[-1] == ("left out 1 of 4 students, no Email address known (add an email column to the --roster, "
                        "or use --moodle-id username): cy")  # fmt: skip


def test_the_exit_statuses_are_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "exit status: 0" in help_text
    assert "3 the file is written but some students are left out" in help_text
    assert "2 nothing is written" in help_text


def test_an_export_of_a_class_with_no_students_fails(tmp_path, capsys, monkeypatch):

    monkeypatch.delenv("AUTOGRADER_DB_URL", raising=False)
    empty = make_class(str(tmp_path / "empty"), {})
    status, _, err = run(empty, capsys, "--format", "canvas")
    assert status == 2
    assert "no students in the gradebook" in err


def test_the_readme_export_commands_work_as_written(graded_course, capsys):
    """Each `python -m autograder export $A` of the README and the guide, run as it is written there."""
    docs = ""
    for name in ("README.md", os.path.join("docs", "instructor.md")):
        with open(os.path.join(ROOT, name), encoding="utf-8") as f:
            docs += f.read()
    commands = sorted(set(re.findall(r"`(python -m autograder export \$A[^`]*)`", docs)))
    assert len(commands) >= 2, commands  # Canvas and Moodle
    for command in commands:
        argv = shlex.split(command.replace("$A", LESSON))[3:]
        status = main([*argv, "--course", graded_course])
        out = capsys.readouterr().out
        assert status == 0, (command, out)
        assert "left out" not in out


# -- the hub's LMS record stands in for the roster ---------------------------------------------
def hub_record(folder, people: dict) -> str:
    """A record folder as the hub leaves it: ``people`` (student -> claims) each launched once."""
    import datetime

    from autograder.grading.lms_record import EXT_CLAIM, LIS_CLAIM, RecordFolder, record_launch

    record, when = None, datetime.datetime(2026, 12, 5, tzinfo=datetime.timezone.utc)
    for student, (claims, ext) in people.items():
        extra = {EXT_CLAIM: {"user_username": ext}} if ext else {LIS_CLAIM: {"person_sourcedid": f"SIS-{student}"}}
        record = record_launch(record, course=COURSE_ID, account=student, role="students", claims={**claims, **extra},
                               platform={}, now=when)  # fmt: skip
    RecordFolder(str(folder)).save(record)
    return str(folder)


LAUNCHED = {"ada": ({"sub": "17", "given_name": "Ada", "family_name": "King", "email": "ada.king@lms.example"},
                    "aking"),
            "cy": ({"sub": "18", "name": "Cy Young", "email": "cy@lms.example"}, "cyoung"),
            "dee": ({"sub": "19"}, None)}  # fmt: skip


def test_moodle_takes_emails_from_the_record_without_a_roster(graded_course, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_LMS_RECORD", hub_record(tmp_path / "record", LAUNCHED))
    rows, out = export(graded_course, capsys, "--format", "moodle")
    assert rows[1:] == [["ada.king@lms.example", "7.0"], ["bob@uni.example", "10.0"], ["cy@lms.example", "4.0"],
                        ["dee@uni.example", ""]]  # fmt: skip
    assert "left out" not in out  # cy has no email in the gradebook: the LMS gave one


def test_moodle_usernames_come_from_the_record_and_the_roster_wins(graded_course, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_LMS_RECORD", hub_record(tmp_path / "record", LAUNCHED))
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,username\ncy,cy-typed\n")
    rows, _ = export(graded_course, capsys, "--format", "moodle", "--moodle-id", "username", "--roster", str(roster))
    assert rows[1:] == [["aking", "7.0"], ["bob", "10.0"], ["cy-typed", "4.0"], ["dee", ""]]


def test_canvas_takes_names_and_sis_ids_from_the_record(graded_course, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_LMS_RECORD", hub_record(tmp_path / "record", LAUNCHED))
    rows, out = export(graded_course, capsys, "--format", "canvas")
    assert rows[2] == ["King, Ada", "", "", "ada", "", "7.0"]  # ada launched from Moodle: no SIS id
    assert rows[5] == ["Dee, Dee", "", "SIS-dee", "dee", "", ""]  # no name in the record: the gradebook's
    assert "no --roster" not in out


def test_one_email_for_two_students_sends_neither_grade(graded_course, tmp_path, capsys, monkeypatch):
    """An LMS account whose email is set to a classmate's would import the classmate's grade on it."""
    people = {**LAUNCHED, "cy": ({"sub": "18", "email": "BOB@uni.example"}, None)}
    monkeypatch.setenv("AUTOGRADER_LMS_RECORD", hub_record(tmp_path / "record", people))
    rows, out = export(graded_course, capsys, "--format", "moodle", status=3)
    assert rows[1:] == [["ada.king@lms.example", "7.0"], ["dee@uni.example", ""]]
    assert ("left out 2 of 4 students, one Email address for several students (their grades would go to one "
            "Moodle user): bob, cy") in out  # fmt: skip


def test_a_broken_record_stops_the_export_and_is_named(graded_course, tmp_path, capsys, monkeypatch):
    (tmp_path / "record").mkdir()
    (tmp_path / "record" / "lms.json").write_text('{"version": 1, "course": "c", "people": []}')
    monkeypatch.setenv("AUTOGRADER_LMS_RECORD", str(tmp_path / "record"))
    status, _, err = run(graded_course, capsys, "--format", "moodle")
    assert status == 2 and "lms.json: not an LMS record (people is not an object)" in err
