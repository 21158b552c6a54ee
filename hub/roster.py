"""The hub's roster: its courses, and who teaches, assists and studies in each.

One course, as the roster has always been written (its course id is ``autograd-course``)::

    instructors = ["instructor1"]
    tas = ["ta1"]
    students = ["student1", "student2"]

Several courses on one hub, one table each (the key is nbgrader's course id: the exchange's
folder, the grading service's name, the groups' suffix)::

    [courses.autograd-fall]
    instructors = ["instructor1"]
    tas = ["ta1"]
    students = ["student1", "student2"]
    lti_context = "4f2b8c0e"        # optional: the LMS's context id of this course (LTI 1.3 logins)

    [courses.autograd-spring]
    instructors = ["instructor2"]
    students = ["student1", "student3"]
    root = "/srv/courses/spring"     # optional: the course folder (default /srv/<course id>)
    grader = "grader-spring"         # optional: its grader account (default grader-<course id>)

Each course gets its own groups: ``formgrade-<id>`` (instructors and TAs: nbgrader's name for who
may use that course's formgrader), ``nbgrader-<id>`` (students: nbgrader's name for who may fetch
and submit in that course), and ``instructors-<id>``, ``tas-<id>``, ``students-<id>``.  Account
names are the hub's user names.  Reading the roster checks it and says what is wrong; it never
guesses.

Every course needs an instructor, except under LTI 1.3 logins (``lms=True``: the hub's
AUTOGRADER_AUTH=lti13), where a course with an ``lti_context`` may name none: each launch's roles
say who teaches it, and an account named only to fill the list would be a login nobody uses (and,
on a hub of one course, a hub admin).  A course without ``lti_context`` has no LMS to say so, and
still needs one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tomllib

from autograder.settings import SETTINGS

DEFAULT_COURSE = SETTINGS.default("course_id")  # a roster without [courses] is this one course
ROLES = ("instructors", "tas", "students")
COURSE_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")  # a folder, a URL part, a group and account suffix
ACCOUNT = re.compile(r"[a-z_][a-z0-9_.-]{0,31}")  # a portable account name (useradd's rules)
COURSE_KEYS = {*ROLES, "root", "grader", "lti_context"}


class RosterError(ValueError):
    """The roster cannot be used as written; the message says where and why."""


@dataclass(frozen=True)
class Course:
    id: str
    instructors: tuple[str, ...]
    tas: tuple[str, ...]
    students: tuple[str, ...]
    root: str
    grader: str
    lti_context: str | None = None

    @property
    def staff(self) -> tuple[str, ...]:
        return self.instructors + self.tas

    @property
    def service(self) -> str:
        """The name of its grading server, a hub service (``/services/<name>/``)."""
        return self.id

    def groups(self) -> dict[str, list[str]]:
        return {
            f"instructors-{self.id}": list(self.instructors),
            f"tas-{self.id}": list(self.tas),
            f"students-{self.id}": list(self.students),
            f"formgrade-{self.id}": list(self.staff),
            f"nbgrader-{self.id}": list(self.students),
        }


def _names(where: str, value) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise RosterError(f'{where} must be a list of account names, e.g. ["student1", "student2"]')
    bad = [name for name in value if not ACCOUNT.fullmatch(name)]
    if bad:
        raise RosterError(f"{where}: {bad[0]!r} is not an account name (lower-case letters, digits, _ . -)")
    if len(set(value)) != len(value):
        raise RosterError(f"{where} names someone twice")
    return tuple(value)


def _course(course_id: str, table: dict, default_root: str, lms: bool) -> Course:
    if not COURSE_ID.fullmatch(course_id):
        raise RosterError(f"course id {course_id!r}: use lower-case letters, digits and dashes (at most 40)")
    unknown = sorted(set(table) - COURSE_KEYS)
    if unknown:
        raise RosterError(f"course {course_id}: unknown key {unknown[0]!r} (known: {', '.join(sorted(COURSE_KEYS))})")
    people = {role: _names(f"course {course_id}: {role}", table.get(role, [])) for role in ROLES}
    context = table.get("lti_context")
    if not people["instructors"] and not (lms and context):
        raise RosterError(f"course {course_id} has no instructor"
                          + (": under LTI name its LMS course (lti_context), whose launches say who teaches"
                             if lms else ""))  # fmt: skip
    for role in ("instructors", "tas"):
        both = sorted(set(people[role]) & set(people["students"]))
        if both:
            raise RosterError(f"course {course_id}: {both[0]} is both one of its {role} and a student")
    both = sorted(set(people["instructors"]) & set(people["tas"]))
    if both:
        raise RosterError(f"course {course_id}: {both[0]} is both an instructor and a TA")
    root = table.get("root", f"{default_root.rstrip('/')}/{course_id}")
    grader = table.get("grader", f"grader-{course_id}")
    if not isinstance(root, str) or not root.startswith("/"):
        raise RosterError(f'course {course_id}: root must be an absolute folder, e.g. "/srv/{course_id}"')
    if not isinstance(grader, str) or not ACCOUNT.fullmatch(grader):
        raise RosterError(f"course {course_id}: grader must be an account name")
    if context is not None and (not isinstance(context, str) or not context):
        raise RosterError(f"course {course_id}: lti_context must be the LMS's context id, a string")
    return Course(course_id, people["instructors"], people["tas"], people["students"], root, grader, context)


def parse(data: dict, default_root: str = "/srv", lms: bool = False) -> list[Course]:
    """The courses of a roster already read from TOML; ``lms``: logins come from an LMS (LTI 1.3), so
    a course with an ``lti_context`` may name no instructor."""
    flat = set(data) & set(ROLES)
    if "courses" in data:
        if flat:
            raise RosterError(f"the roster has both [courses.<id>] tables and a top-level {sorted(flat)[0]!r}: "
                              "put everyone in their course's table")  # fmt: skip
        tables = data["courses"]
        if not isinstance(tables, dict) or not tables:
            raise RosterError("[courses] holds no course: add a table [courses.<id>] per course")
    else:
        tables = {DEFAULT_COURSE: {k: v for k, v in data.items() if k in COURSE_KEYS}}
    unknown = sorted(set(data) - COURSE_KEYS - {"courses"})
    if unknown:
        raise RosterError(f"unknown key {unknown[0]!r} at the top of the roster")
    courses = []
    for course_id, table in tables.items():
        if not isinstance(table, dict):
            raise RosterError(f"courses.{course_id} must be a table of its people")
        courses.append(_course(course_id, table, default_root, lms))
    _check_across(courses)
    return courses


def _check_across(courses: list[Course]) -> None:
    services = {c.service for c in courses}
    graders = [c.grader for c in courses]
    if len(set(graders)) != len(graders):
        raise RosterError("two courses share a grader account: each course needs its own")
    if len({c.root for c in courses}) != len(courses):
        raise RosterError("two courses share a course folder: each course needs its own")
    contexts = [c.lti_context for c in courses if c.lti_context]
    if len(set(contexts)) != len(contexts):
        raise RosterError("two courses share an lti_context: an LMS course maps to one course here")
    for course in courses:
        clash = set(course.instructors + course.tas + course.students) & (services | set(graders))
        if clash:
            raise RosterError(f"course {course.id} names {sorted(clash)[0]!r}, which is a course's service "
                              "or grader account")  # fmt: skip


def load(path: str, default_root: str = "/srv", lms: bool = False) -> list[Course]:
    """The courses of the roster file at ``path`` (``lms`` as in ``parse``); ``RosterError`` says what is
    wrong with it."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except tomllib.TOMLDecodeError as error:
        raise RosterError(f"{path} is not valid TOML: {error}") from None
    try:
        return parse(data, default_root, lms)
    except RosterError as error:
        raise RosterError(f"{path}: {error}") from None


def everyone(courses: list[Course], role: str) -> list[str]:
    """Everyone who has ``role`` in at least one course, each once, in roster order."""
    seen: dict[str, None] = {}
    for course in courses:
        for name in getattr(course, role):
            seen.setdefault(name)
    return list(seen)
