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

**What it says it did.**  A student with no identifier of the kind asked for is left out of the
file (Moodle only: Canvas falls back to the nbgrader id).  The command says who, why and how many
as its last lines and exits ``LEFT_OUT_STATUS`` (3), so a script that imports the file can tell.
An export that would leave *every* student out, or that has no student at all, writes nothing
(a header-only file imports as "done" and changes no grade) and fails with the option that
would have worked.  The file is written whole or not at all (a temporary file renamed over it),
so a failed run leaves the previous export as it was.
"""

from __future__ import annotations

import csv
import os
import tempfile
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI reads this module's names without nbgrader's import time
    from .export import Score

FORMATS = ("canvas", "moodle")
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_IDS = {"email": "Email address", "username": "Username", "idnumber": "ID number"}
ROSTER_COLUMNS = ("name", "canvas_id", "sis_user_id", "sis_login_id", "section", "email", "username", "idnumber")
# How a student with no identifier of that kind gets one (`--moodle-id username` always has one: the nbgrader id).
MOODLE_FIX = {"email": "add an email column to the --roster, or use --moodle-id username",
              "idnumber": "add an idnumber column to the --roster, or use --moodle-id username"}  # fmt: skip
LEFT_OUT_STATUS = 3  # the file is written, some students are not in it (`python -m autograder export --help`)


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


@dataclass
class Exported:
    """What one export wrote, and whom it left out, as the command tells the instructor."""

    path: str
    students: int  # in the gradebook
    left_out: list[str] = field(default_factory=list)
    why_left_out: str = ""
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The notes, the file, then (last, where it is seen) who is not in it."""
        lines = [f"note: {note}" for note in self.notes]
        lines.append(f"wrote {self.path} ({self.students - len(self.left_out)} of {self.students} students)")
        if self.left_out:
            lines.append(f"left out {len(self.left_out)} of {self.students} students, {self.why_left_out}: "
                         f"{', '.join(sorted(self.left_out))}")  # fmt: skip
        return lines

    @property
    def status(self) -> int:
        return LEFT_OUT_STATUS if self.left_out else 0


def scores_max(scores: list[Score]) -> float:
    return scores[0].max_score if scores else 0.0


def write_rows(path: str, rows: list[list]) -> None:
    from .export import spreadsheet_safe

    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    # Whole or not at all: a run that fails half-way leaves the previous export, not half of one.
    fd, partial = tempfile.mkstemp(prefix=".export-", suffix=".csv", dir=folder)
    try:
        with open(fd, "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows([[spreadsheet_safe(v) for v in row] for row in rows])
        os.replace(partial, path)
    except BaseException:
        os.unlink(partial)
        raise


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
) -> Exported:
    """Write the file; what was written and who was left out, for the instructor.  Writes nothing,
    and raises GradeError, when no student would be in the file."""
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
    if not scores:
        raise GradeError(f"no students in the gradebook for {assignment}: nothing written (collect and grade first)")
    known = read_roster(roster)
    column = Column(title or assignment, lms_id)
    path = output or os.path.join(view.folder, "reports", f"{assignment}-{fmt}.csv")
    done = Exported(path, len(scores))
    if fmt == "canvas":
        rows = canvas_rows(scores, column, known, missing_as_zero)
        if not known:
            done.notes.append("no --roster: Canvas will match students by SIS Login ID = the nbgrader student id")
    else:
        rows, done.left_out = moodle_rows(scores, column, known, moodle_id, missing_as_zero)
        if done.left_out:
            done.why_left_out = f"no {MOODLE_IDS[moodle_id]} known ({MOODLE_FIX[moodle_id]})"
        if len(done.left_out) == len(scores):
            raise GradeError(f"every student ({len(scores)}) left out: {done.why_left_out}; nothing written")
    pending = [s.student for s in scores if s.needs_manual_grade]
    if pending:
        done.notes.append(f"left empty, waiting for manual grading: {', '.join(pending)}")
    write_rows(path, rows)
    return done
