"""``python -m autograder export ASSIGNMENT --format canvas|moodle``: a gradebook file that the LMS
imports as it is, for schools without LTI (``publish`` posts the same scores over LTI).

The scores are ``nbgrader export``'s totals (``csv_export.assignment_scores``).  A student with no
submission gets an empty cell: no grade from this file (``--missing-as-zero`` writes 0, as
nbgrader's export does); so does a submission that still needs manual grading.  Every text cell
is spreadsheet-safe (``csv_export.spreadsheet_safe``).

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

**The LMS record** (on a hub with LTI logins: the folder in ``AUTOGRADER_LMS_RECORD``,
``lms_record.py``): what the students' launches carried stands in for a roster, so no ``--roster``
is needed.  From it come ``name`` (Canvas's Student: "family_name, given_name", else the launch's
``name``), ``email`` (the launch's ``email`` claim, sent when the LMS's privacy settings share it),
``username`` (Moodle's login name, from Moodle's ``ext`` claim ``user_username``) and
``sis_user_id`` (the ``lis`` claim's ``person_sourcedid``, Canvas's SIS user id).  The roster CSV,
when given too, wins value by value; the record wins over the gradebook (it is what the LMS
itself knows the student by).

**No score to the wrong person.**  Two students with one Moodle identifier (one email given to
two accounts) would both be imported onto one Moodle user: both are left out, and named.

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
    from .csv_export import Score

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
    from .course_assignment import GradeError

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


def record_roster(record: dict | None) -> dict[str, dict[str, str]]:
    """student_id -> {roster column: value} of what the LMS record knows (see the module's docstring)."""
    roster = {}
    for student, person in ((record or {}).get("people") or {}).items():
        family, given = person.get("family_name"), person.get("given_name")
        name = ", ".join(p for p in (family, given) if p) if family or given else person.get("name")
        known = {"name": name, "email": person.get("email"), "username": person.get("username"),
                 "sis_user_id": person.get("sis_id")}  # fmt: skip
        roster[student] = {k: v for k, v in known.items() if v}
    return roster


def merged_roster(record: dict | None, roster: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """The record's roster, with the CSV roster's values over it, value by value."""
    merged = record_roster(record)
    for student, values in roster.items():
        merged[student] = {**merged.get(student, {}), **values}
    return merged


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
                missing_as_zero: bool = False) -> tuple[list[list], list[str], list[str]]:  # fmt: skip
    """The rows, the students left out because they have no identifier of that kind, and those left
    out because another student has the same one."""
    rows, left_out, shared = [[MOODLE_IDS[key], column.title]], [], []
    idents = {}
    for s in scores:
        known = roster.get(s.student, {})
        idents[s.student] = known.get(key) or {"email": s.email or "", "username": s.student, "idnumber": ""}[key]
    # Compared without case: Moodle's import maps "Map from" without it for usernames, and an LMS
    # that folds emails one way and a roster another would still mean one person.
    taken = [ident.casefold() for ident in idents.values() if ident]
    for s in scores:
        ident = idents[s.student]
        if not ident or taken.count(ident.casefold()) > 1:
            (shared if ident else left_out).append(s.student)
            continue
        rows.append([ident, _cell(s, missing_as_zero)])
    return rows, left_out, shared


@dataclass
class Exported:
    """What one export wrote, and whom it left out, as the command tells the instructor."""

    path: str
    students: int  # in the gradebook
    left_out: list[str] = field(default_factory=list)
    why_left_out: str = ""
    shared: list[str] = field(default_factory=list)  # left out: their identifier is another's too
    shared_id: str = ""
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The notes, the file, then (last, where it is seen) who is not in it."""
        lines = [f"note: {note}" for note in self.notes]
        written = self.students - len(self.left_out) - len(self.shared)
        lines.append(f"wrote {self.path} ({written} of {self.students} students)")
        if self.shared:
            why = f"one {self.shared_id} for several students (their grades would go to one Moodle user)"
            lines.append(f"left out {len(self.shared)} of {self.students} students, {why}: "
                         f"{', '.join(sorted(self.shared))}")  # fmt: skip
        if self.left_out:
            lines.append(f"left out {len(self.left_out)} of {self.students} students, {self.why_left_out}: "
                         f"{', '.join(sorted(self.left_out))}")  # fmt: skip
        return lines

    @property
    def status(self) -> int:
        return LEFT_OUT_STATUS if self.left_out or self.shared else 0


def scores_max(scores: list[Score]) -> float:
    return scores[0].max_score if scores else 0.0


def _load_record(record: str | None) -> dict | None:
    from .course_assignment import GradeError
    from .lms_record import LmsRecordError, RecordFolder

    folder = RecordFolder.of_course(record)
    try:
        return folder.load() if folder else None
    except LmsRecordError as error:
        raise GradeError(str(error)) from None


def write_rows(path: str, rows: list[list]) -> None:
    from .csv_export import spreadsheet_safe

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
    record: str | None = None,
) -> Exported:
    """Write the file; what was written and who was left out, for the instructor.  ``record``: the
    course's LMS record folder (default: ``AUTOGRADER_LMS_RECORD``'s).  Writes nothing, and raises
    GradeError, when no student would be in the file."""
    from nbgrader.api import Gradebook

    from .course_assignment import CourseAssignment, GradeError
    from .csv_export import assignment_scores

    if fmt not in FORMATS:
        raise GradeError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if moodle_id not in MOODLE_IDS:
        raise GradeError(f"unknown Moodle identifier {moodle_id!r}: choose one of {', '.join(MOODLE_IDS)}")
    view = CourseAssignment(course, assignment)
    with Gradebook(view.coursedir.db_url, view.coursedir.course_id) as gb:
        scores = assignment_scores(gb, assignment)
    if not scores:
        raise GradeError(f"no students in the gradebook for {assignment}: nothing written (collect and grade first)")
    known = merged_roster(_load_record(record), read_roster(roster))
    column = Column(title or assignment, lms_id)
    path = output or os.path.join(view.folder, "reports", f"{assignment}-{fmt}.csv")
    done = Exported(path, len(scores))
    if fmt == "canvas":
        rows = canvas_rows(scores, column, known, missing_as_zero)
        if not any(k in v for v in known.values() for k in ("canvas_id", "sis_user_id", "sis_login_id")):
            done.notes.append("no --roster: Canvas will match students by SIS Login ID = the nbgrader student id")
    else:
        rows, done.left_out, done.shared = moodle_rows(scores, column, known, moodle_id, missing_as_zero)
        done.shared_id = MOODLE_IDS[moodle_id]
        if done.left_out:
            done.why_left_out = f"no {MOODLE_IDS[moodle_id]} known ({MOODLE_FIX[moodle_id]})"
        if len(done.left_out) + len(done.shared) == len(scores):
            why = done.why_left_out or f"one {done.shared_id} for several students"
            raise GradeError(f"every student ({len(scores)}) left out: {why}; nothing written")
    pending = [s.student for s in scores if s.needs_manual_grade]
    if pending:
        done.notes.append(f"left empty, waiting for manual grading: {', '.join(pending)}")
    write_rows(path, rows)
    return done
