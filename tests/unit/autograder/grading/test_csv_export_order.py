"""Every file the course writes lists students by id, whatever their names: zip_collect and autograde
create students without names, and nbgrader's own order (last name, then first name) leaves those in
whatever order the database returns them, so two exports of one class differed.  No name shows as
"None" either.

Beside autograder/grading/csv_export.py (the order of its files); also tries the LMS files of
lms_export.py and the names student_names.py gives."""

import csv

import pytest

from autograder.cli import main
from autograder.grading.csv_export import SafeCsvExport
from tests.unit.autograder.grading.gradebook_class import COURSE_ID, LESSON, db_url, make_class

# added in an order that is neither the ids' nor the names'; two without names, as zip_collect leaves them
SCORES = {"zoe": 3, "mo": None, "ann": 9, "kim": 5, "bea": 7}
PEOPLE = {"zoe": ("Zoe", "Adams", "zoe@uni.example"), "mo": (None, None, "mo@uni.example"),
          "ann": ("Ann", "Young", "ann@uni.example"), "kim": (None, None, "kim@uni.example"),
          "bea": ("Bea", "Moss", "bea@uni.example")}  # fmt: skip
BY_ID = sorted(SCORES)


@pytest.fixture(scope="module")
def partly_named_class(tmp_path_factory) -> str:
    return make_class(str(tmp_path_factory.mktemp("order") / "course"), SCORES, people=PEOPLE)


def _rows(path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def test_grades_csv_lists_students_by_id_and_no_name_as_none(partly_named_class, tmp_path):
    from nbgrader.api import Gradebook

    target = str(tmp_path / "grades.csv")
    with Gradebook(db_url(partly_named_class), COURSE_ID) as gb:
        SafeCsvExport(to=target, assignment=[], student=[]).export(gb)
    rows = _rows(target)
    assert [r[3] for r in rows[1:]] == BY_ID
    assert not any("None" in cell for row in rows for cell in row)


@pytest.mark.parametrize("fmt, first_row", [("canvas", 2), ("moodle", 1)])
def test_lms_files_list_students_by_id(partly_named_class, tmp_path, capsys, monkeypatch, fmt, first_row):
    monkeypatch.delenv("AUTOGRADER_DB_URL", raising=False)
    target = str(tmp_path / f"{fmt}.csv")
    main(["export", LESSON, "--course", partly_named_class, "--format", fmt, "--output", target])
    capsys.readouterr()
    rows = _rows(target)[first_row:]
    column = 3 if fmt == "canvas" else 0  # SIS Login ID; Moodle's email, which starts with the id here
    assert [r[column].split("@")[0] for r in rows] == BY_ID
    assert not any("None" in cell for row in rows for cell in row)


def test_a_student_the_grader_creates_is_named_with_dashes_and_a_named_one_keeps_the_name(tmp_path):
    """The formgrader writes a missing name as "None, None": the grader's step names such a student "—"."""
    from nbgrader.api import Gradebook
    from traitlets.config import Config

    from autograder.grading.student_names import NO_NAME, NameUnnamedStudent

    folder = make_class(str(tmp_path / "course"), {"kim": 5, "ann": 9}, people=PEOPLE)
    config = Config()
    config.CourseDirectory.root, config.CourseDirectory.db_url = folder, db_url(folder)
    config.CourseDirectory.course_id = COURSE_ID
    for student in ("kim", "ann", "nobody"):
        NameUnnamedStudent(config=config).preprocess(None, {"nbgrader": {"student": student}})
    with Gradebook(db_url(folder), COURSE_ID) as gb:
        names = {s.id: (s.first_name, s.last_name) for s in gb.students}
    assert names == {"kim": (NO_NAME, NO_NAME), "ann": ("Ann", "Young")}


def test_the_exports_read_the_dashes_as_no_name(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("AUTOGRADER_DB_URL", raising=False)
    folder = make_class(str(tmp_path / "course"), {"kim": 5}, people={"kim": ("—", "—", "kim@uni.example")})
    target = str(tmp_path / "canvas.csv")
    main(["export", LESSON, "--course", folder, "--format", "canvas", "--output", target])
    capsys.readouterr()
    assert _rows(target)[2][0] == "kim"  # named by id, as a student nobody named
