"""``python -m autograder export ASSIGNMENT --format canvas|moodle``: a gradebook file that the LMS
imports as it is, for schools without LTI (``publish`` posts the same scores over LTI).

The scores are ``nbgrader export``'s totals (``export.assignment_scores``).  A student with no
submission gets an empty cell: no grade from this file (``--missing-as-zero`` writes 0, as
nbgrader's export does); so does a submission that still needs manual grading.  Every text cell
is spreadsheet-safe (``export.spreadsheet_safe``).

**Canvas** (Grades > Import; "How do I import grades in the Gradebook?", Canvas Instructor Guide:
https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807,
the layout of Canvas's own gradebook export): the columns ``Student, ID, SIS User ID, SIS Login ID,
Section`` and then one column per assignment, headed ``Title (id)`` with the Canvas assignment's id
(``--title``, ``--lms-id``; with no id Canvas makes a new assignment named by the header on import),
a ``Points Possible`` row under the header, then one row per student.  Canvas finds each student by
``ID`` (Canvas's user id), else ``SIS User ID``, else ``SIS Login ID``, so at least one must be
right: they come from the roster (below); without one, ``SIS Login ID`` is the nbgrader student id,
which is right when students log in to Canvas with the ids they have here (a hub on the
institution's accounts), and ``Student`` is "Last, First" from the gradebook.

**Moodle** (Grades > Import > CSV file; "Grade import", MoodleDocs:
https://docs.moodle.org/en/Grade_import): one identifier column and the grade column, headed with
the title (default: the assignment id).  On import, map "Map from" to the identifier column and
"Map to" the matching user field: ``Email address`` -> useremail (the default; from the gradebook's
student emails or the roster), ``Username`` -> username (``--moodle-id username``; the roster's
username, else the nbgrader id), ``ID number`` -> useridnumber (``--moodle-id idnumber``, roster
only); then map the grade column to the grade item.  Moodle matches emails case-sensitively.

**The roster** (``--roster roster.csv``): a CSV the instructor keeps, one row per student, the
column ``student_id`` (the nbgrader id) and any of ``name``, ``canvas_id``, ``sis_user_id``,
``sis_login_id``, ``section`` (copy them from Canvas's own gradebook export: Grades > Export,
columns Student, ID, SIS User ID, SIS Login ID, Section) and ``email``, ``username``, ``idnumber``
(Moodle's Participants page or its grade export).  A value in the roster wins over the gradebook's.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI reads this module's names without nbgrader's import time
    from .export import Score

FORMATS = ("canvas", "moodle")
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_IDS = {"email": "Email address", "username": "Username", "idnumber": "ID number"}
ROSTER_COLUMNS = ("name", "canvas_id", "sis_user_id", "sis_login_id", "section", "email", "username", "idnumber")


@dataclass
class Column:
    title: str
    lms_id: str | None = None

    def canvas_header(self) -> str:
        return f"{self.title} ({self.lms_id})" if self.lms_id else self.title


def read_roster(path: str | None) -> dict[str, dict[str, str]]:
    """student_id -> {column: value} of the roster CSV (empty values left out)."""
    from .course import GradeError

    if not path:
        return {}
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            columns = reader.fieldnames or []
    except OSError as error:
        raise GradeError(f"cannot read the roster {path}: {error.strerror}") from None
    if "student_id" not in columns:
        has = ", ".join(columns)
        raise GradeError(f"{path}: the roster needs a student_id column (the nbgrader ids); it has {has}")
    return {r["student_id"].strip(): {k: (r.get(k) or "").strip() for k in ROSTER_COLUMNS if (r.get(k) or "").strip()}
            for r in rows if (r.get("student_id") or "").strip()}  # fmt: skip


def _cell(score: Score, missing_as_zero: bool):
    if score.needs_manual_grade or (not score.submitted and not missing_as_zero):
        return ""
    return round(score.score, 6)


def canvas_rows(scores: list[Score], column: Column, roster: dict, missing_as_zero: bool = False) -> list[list]:
    rows = [[*CANVAS_COLUMNS, column.canvas_header()], ["    Points Possible", "", "", "", "", scores_max(scores)]]
    for s in scores:
        known = roster.get(s.student, {})
        name = ", ".join(p for p in (s.last_name, s.first_name) if p) or s.student
        ids = [known.get("canvas_id", ""), known.get("sis_user_id", ""), known.get("sis_login_id", s.student)]
        rows.append([known.get("name", name), *ids, known.get("section", ""), _cell(s, missing_as_zero)])
    return rows


def moodle_rows(scores: list[Score], column: Column, roster: dict, key: str = "email",
                missing_as_zero: bool = False) -> tuple[list[list], list[str]]:  # fmt: skip
    """The rows, and the students left out because they have no identifier of that kind."""
    rows, left_out = [[MOODLE_IDS[key], column.title]], []
    for s in scores:
        known = roster.get(s.student, {})
        ident = known.get(key) or {"email": s.email or "", "username": s.student, "idnumber": ""}[key]
        if not ident:
            left_out.append(s.student)
            continue
        rows.append([ident, _cell(s, missing_as_zero)])
    return rows, left_out


def scores_max(scores: list[Score]) -> float:
    return scores[0].max_score if scores else 0.0


def write_rows(path: str, rows: list[list]) -> None:
    from .export import spreadsheet_safe

    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([[spreadsheet_safe(v) for v in row] for row in rows])


def export_lms(
    course: str,
    assignment: str,
    fmt: str,
    output: str | None = None,
    roster: str | None = None,
    title: str | None = None,
    lms_id: str | None = None,
    moodle_id: str = "email",
    missing_as_zero: bool = False,
) -> tuple[str, list[str]]:
    """Write the file; returns its path and warnings for the instructor (students left out, ...)."""
    from nbgrader.api import Gradebook

    from .course import CourseAssignment, GradeError
    from .export import assignment_scores

    if fmt not in FORMATS:
        raise GradeError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if moodle_id not in MOODLE_IDS:
        raise GradeError(f"unknown Moodle identifier {moodle_id!r}: choose one of {', '.join(MOODLE_IDS)}")
    view = CourseAssignment(course, assignment)
    with Gradebook(view.coursedir.db_url, view.coursedir.course_id) as gb:
        scores = assignment_scores(gb, assignment)
    known = read_roster(roster)
    column = Column(title or assignment, lms_id)
    warnings = []
    if fmt == "canvas":
        rows = canvas_rows(scores, column, known, missing_as_zero)
        if not known:
            warnings.append("no --roster: Canvas will match students by SIS Login ID = the nbgrader student id")
    else:
        rows, left_out = moodle_rows(scores, column, known, moodle_id, missing_as_zero)
        if left_out:
            warnings.append(f"left out, no {MOODLE_IDS[moodle_id]} known (add it to the roster): {', '.join(left_out)}")
    pending = [s.student for s in scores if s.needs_manual_grade]
    if pending:
        warnings.append(f"left empty, waiting for manual grading: {', '.join(pending)}")
    path = output or os.path.join(view.folder, "reports", f"{assignment}-{fmt}.csv")
    write_rows(path, rows)
    return path, warnings
