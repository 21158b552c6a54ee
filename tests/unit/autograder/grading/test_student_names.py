"""Names in the gradebook from the LMS: autograde creates each student with an id only; the grader's
naming step (``student_names.NameUnnamedStudent``, a sanitizing step of ``python -m autograder grade``
and plain ``nbgrader autograde`` alike) fills the names and email from the hub's LMS record, and
never overwrites what an instructor typed."""

import datetime

import pytest
from nbgrader.api import Gradebook
from traitlets.config import Config

from autograder.grading.lms_record import RecordFolder, record_launch
from autograder.grading.student_names import NO_NAME, NameUnnamedStudent
from tests.unit.autograder.grading.gradebook_class import COURSE_ID, db_url, make_class

LAUNCHES = {
    "ada": {"sub": "535fa085", "given_name": "Ada", "family_name": "Lovelace", "email": "ada@lms.example"},
    "kim": {"sub": "17", "name": "Kim Lee"},  # Moodle sharing the full name only
    "ann": {"sub": "18", "given_name": "Annie", "family_name": "Y", "email": "annie@lms.example"},
    "zed": {"sub": "19"},  # no name shared at all
}
# as autograde leaves them: ada and kim and zed with no names, ann as the instructor typed her in
PEOPLE = {"ada": (None, None, None), "kim": (None, None, "kim@typed.example"), "ann": ("Ann", "Young", None),
          "zed": (None, None, None)}  # fmt: skip


@pytest.fixture
def course_with_lms(tmp_path) -> tuple[str, str]:
    folder = make_class(str(tmp_path / "course"), dict.fromkeys(PEOPLE, 5), people=PEOPLE)
    record, when = None, datetime.datetime(2026, 12, 5, tzinfo=datetime.timezone.utc)
    for student, claims in LAUNCHES.items():
        record = record_launch(record, course=COURSE_ID, account=student, role="students", claims=claims,
                               platform={}, now=when)  # fmt: skip
    RecordFolder(str(tmp_path / "record")).save(record)
    return folder, str(tmp_path / "record")


def name_everyone(folder: str, **settings) -> dict:
    config = Config()
    config.CourseDirectory.root, config.CourseDirectory.db_url = folder, db_url(folder)
    config.CourseDirectory.course_id = COURSE_ID
    for key, value in settings.items():
        setattr(config.NameUnnamedStudent, key, value)
    for student in PEOPLE:
        NameUnnamedStudent(config=config).preprocess(None, {"nbgrader": {"student": student}})
    with Gradebook(db_url(folder), COURSE_ID) as gb:
        return {s.id: (s.first_name, s.last_name, s.email) for s in gb.students}


def test_students_get_the_lms_names_and_emails_and_typed_ones_stay(course_with_lms, monkeypatch):
    folder, record = course_with_lms
    monkeypatch.setenv("AUTOGRADER_LMS_RECORD", record)
    assert name_everyone(folder) == {
        "ada": ("Ada", "Lovelace", "ada@lms.example"),
        "kim": ("Kim Lee", NO_NAME, "kim@typed.example"),  # the typed email stays
        "ann": ("Ann", "Young", "annie@lms.example"),  # the typed names stay; her empty email is filled
        "zed": (NO_NAME, NO_NAME, None),  # nothing shared: the dashes, as without a record
    }


def test_the_record_folder_can_be_set_in_nbgrader_config(course_with_lms, monkeypatch):
    folder, record = course_with_lms
    monkeypatch.delenv("AUTOGRADER_LMS_RECORD", raising=False)
    assert name_everyone(folder, lms_record=record)["ada"] == ("Ada", "Lovelace", "ada@lms.example")


def test_dashes_from_an_earlier_grading_give_way_to_the_lms_names(course_with_lms, monkeypatch):
    folder, record = course_with_lms
    monkeypatch.delenv("AUTOGRADER_LMS_RECORD", raising=False)
    assert name_everyone(folder)["ada"] == (NO_NAME, NO_NAME, None)  # graded before the first launch
    monkeypatch.setenv("AUTOGRADER_LMS_RECORD", record)
    assert name_everyone(folder)["ada"] == ("Ada", "Lovelace", "ada@lms.example")


def test_an_unreadable_record_names_nobody_and_grading_goes_on(course_with_lms, monkeypatch):
    folder, record = course_with_lms
    with open(f"{record}/lms.json", "w") as f:
        f.write("[]")
    monkeypatch.setenv("AUTOGRADER_LMS_RECORD", record)
    assert name_everyone(folder)["ada"] == (NO_NAME, NO_NAME, None)
