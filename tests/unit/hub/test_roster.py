"""hub/roster.py: one course as before, several courses in tables, and a clear refusal of every
roster that cannot be used as written."""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("hub_roster", os.path.join(ROOT, "hub", "roster.py"))
roster = sys.modules["hub_roster"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(roster)

TWO = {
    "courses": {
        "autograd-fall": {"instructors": ["instructor1"], "tas": ["ta1"], "students": ["student1", "student2"],
                          "lti_context": "ctx-fall"},
        "autograd-spring": {"instructors": ["instructor2"], "students": ["student1", "student3"],
                            "root": "/srv/courses/spring", "grader": "grader-spring"},
    }
}  # fmt: skip


def test_shipped_is_autograd_course():
    (course,) = roster.load(os.path.join(ROOT, "hub", "roster.toml"))
    assert (course.id, course.root, course.grader) == ("autograd-course", "/srv/autograd-course",
                                                       "grader-autograd-course")  # fmt: skip
    assert course.groups()["formgrade-autograd-course"] == ["instructor1", "ta1"]


def test_example_shares_a_student():
    fall, spring = roster.load(os.path.join(ROOT, "hub", "roster-two-courses.toml"))
    assert (fall.id, spring.id, spring.root) == ("autograd-course", "autograd-spring", "/srv/courses/autograd-spring")
    assert set(fall.students) & set(spring.students) == {"student1"}


def test_courses_get_own_folders():
    fall, spring = roster.parse(TWO)
    assert (fall.root, fall.grader, fall.lti_context) == ("/srv/autograd-fall", "grader-autograd-fall", "ctx-fall")
    assert (spring.root, spring.grader) == ("/srv/courses/spring", "grader-spring")
    assert spring.groups()["nbgrader-autograd-spring"] == ["student1", "student3"]
    assert spring.groups()["formgrade-autograd-spring"] == ["instructor2"]
    assert roster.everyone([fall, spring], "students") == ["student1", "student2", "student3"]


BAD = {
    "a student who also teaches": ({"instructors": ["a1"], "students": ["a1"]}, "both one of its instructors"),
    "a course without instructor": ({"students": ["s1"]}, "has no instructor"),
    "a name that is no account": ({"instructors": ["Ann Lee"]}, "is not an account name"),
    "a name given as text": ({"instructors": "instructor1"}, "must be a list"),
    "a misspelt key": ({"instructors": ["i1"], "student": ["s1"]}, "unknown key 'student'"),
    "both layouts": ({"instructors": ["i1"], "courses": {"c1": {"instructors": ["i2"]}}}, "both [courses"),
    "a bad course id": ({"courses": {"Fall 2026": {"instructors": ["i1"]}}}, "course id 'Fall 2026'"),
    "a shared grader": ({"courses": {"a": {"instructors": ["i1"], "grader": "g"},
                                     "b": {"instructors": ["i2"], "grader": "g"}}}, "share a grader"),
    "a shared lti context": ({"courses": {"a": {"instructors": ["i1"], "lti_context": "x"},
                                          "b": {"instructors": ["i2"], "lti_context": "x"}}}, "share an lti_context"),
    "a person named like a service": ({"courses": {"a": {"instructors": ["i1"], "students": ["b"]},
                                                   "b": {"instructors": ["i2"]}}}, "course's service"),
    "a relative course folder": ({"instructors": ["i1"], "root": "courses/x"}, "absolute folder"),
}  # fmt: skip


@pytest.mark.parametrize("data, says", BAD.values(), ids=BAD.keys())
def test_bad_roster_gives_reason(data, says):
    with pytest.raises(roster.RosterError) as refused:
        roster.parse(data)
    assert says in str(refused.value)


def test_non_toml_file_is_named(tmp_path):
    path = tmp_path / "roster.toml"
    path.write_text("instructors = [instructor1\n")
    with pytest.raises(roster.RosterError, match="roster.toml is not valid TOML"):
        roster.load(str(path))


LMS_TAUGHT = {"courses": {"autograd-fall": {"students": ["student1"], "lti_context": "ctx-fall"}}}


def test_under_lti_a_course_with_an_lms_context_needs_no_instructor():
    (course,) = roster.parse(LMS_TAUGHT, lms=True)
    assert (course.instructors, course.lti_context) == ((), "ctx-fall")
    assert course.groups()["formgrade-autograd-fall"] == []


def test_under_lti_a_one_course_roster_names_only_its_context(tmp_path):
    path = tmp_path / "roster.toml"
    path.write_text('lti_context = "4f2b8c0e"\n')
    (course,) = roster.load(str(path), lms=True)
    assert (course.id, course.instructors, course.students) == ("autograd-course", (), ())


def test_under_lti_a_course_without_lms_context_still_needs_an_instructor():
    data = {"courses": {**LMS_TAUGHT["courses"], "autograd-spring": {"students": ["student3"]}}}
    with pytest.raises(roster.RosterError, match="course autograd-spring has no instructor: under LTI name its LMS"):
        roster.parse(data, lms=True)


def test_without_lti_an_lms_context_does_not_replace_the_instructor():
    with pytest.raises(roster.RosterError, match="course autograd-fall has no instructor$"):
        roster.parse(LMS_TAUGHT)


def test_under_lti_an_empty_context_is_no_lms_course():
    with pytest.raises(roster.RosterError, match="has no instructor"):
        roster.parse({"lti_context": "", "students": ["student1"]}, lms=True)


def test_under_lti_named_instructors_are_still_checked():
    data = {"courses": {"autograd-fall": {**LMS_TAUGHT["courses"]["autograd-fall"], "instructors": ["student1"]}}}
    with pytest.raises(roster.RosterError, match="student1 is both one of its instructors and a student"):
        roster.parse(data, lms=True)
