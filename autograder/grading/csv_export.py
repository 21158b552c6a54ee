"""Grades as CSV that a spreadsheet opens as data, never as formulas.

A cell that starts with ``=``, ``+``, ``-``, ``@`` (or a tab or carriage return) is a formula to
Excel, LibreOffice and Google Sheets; a student id or an error message that starts so would run
as one when the instructor opens the file.  The spreadsheets are generous about "starts": they skip
leading spaces and line breaks before the ``=``, and some read the fullwidth forms (``＝ ＋ － ＠``,
which Unicode's NFKC folds to the ASCII ones) as the signs themselves.  ``spreadsheet_safe`` prefixes
any text whose first character after whitespace is, or folds to, one of these with an apostrophe
(the spreadsheets' own "this is text" mark); a number written as text (``-1.5``) stays a number.

``SafeCsvExport`` is nbgrader's CSV export (``nbgrader export``, set as ``ExportApp.plugin_class``
in nbgrader_config.py) written with the csv module (commas and quotes in names are quoted, which
nbgrader's own export does not do) and with every text cell made safe; the class report's CSV uses
the same function.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins.export import CsvExportPlugin

from .student_names import NO_NAME

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")  # what a spreadsheet reads as a number


def _formula_trigger(text: str) -> bool:
    if NUMBER.fullmatch(text):
        return False  # a score or a penalty of -1.5: a number, no formula
    if text.startswith(FORMULA_STARTS):
        return True
    rest = text.lstrip()  # spaces, line breaks and Unicode's other blanks, which the spreadsheets skip
    return bool(rest) and unicodedata.normalize("NFKC", rest[0]).startswith(FORMULA_STARTS)


def spreadsheet_safe(value):
    """The value as a spreadsheet should show it: numbers as they are, text never as a formula."""
    if isinstance(value, str) and _formula_trigger(value):
        return "'" + value
    return value


COLUMNS = ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
           "raw_score", "late_submission_penalty", "score", "max_score"]  # fmt: skip


@dataclass(frozen=True)
class Score:
    """One student's total for one assignment, as ``nbgrader export`` computes it."""

    student: str
    first_name: str | None
    last_name: str | None
    email: str | None
    submitted: bool
    timestamp: object  # the submission's time (a datetime), None without a submission
    raw: float
    penalty: float
    max_score: float
    needs_manual_grade: bool = False

    @property
    def score(self) -> float:
        """What the student gets: the raw score less the late penalty, never below zero."""
        return max(0.0, self.raw - self.penalty)


def known_name(name: str | None) -> str | None:
    """A name, or None for none: the "—" a student the grader created gets (``student_names.py``)."""
    return None if name in (None, NO_NAME) else name


def assignment_scores(gradebook: Gradebook, assignment: str, students: list[str] | None = None) -> list[Score]:
    """Every gradebook student's score for ``assignment`` (by student id), with nbgrader export's
    totals: a student with no submission scores 0 (``submitted`` False says so).  In the order of the
    student ids: nbgrader's own order (last name, then first name) leaves students without names, as
    ``zip_collect`` and autograde create them, in whatever order the database returns them, so every
    file made from these scores (grades.csv, the Canvas and Moodle files) would change from run to run."""
    found = gradebook.find_assignment(assignment)
    scores = []
    for student in sorted(gradebook.students, key=lambda s: s.id):
        if students and student.id not in students:
            continue
        try:
            submission = gradebook.find_submission(assignment, student.id)
        except MissingEntry:  # nothing submitted: a score of zero, as nbgrader exports it
            submitted, timestamp, raw, penalty, manual = False, None, 0.0, 0.0, False
        else:
            submitted, timestamp = True, submission.timestamp
            raw, penalty = submission.score, submission.late_submission_penalty or 0.0
            manual = bool(submission.needs_manual_grade)
        first, last = known_name(student.first_name), known_name(student.last_name)
        scores.append(Score(student.id, first, last, student.email, submitted, timestamp, raw, penalty,
                            found.max_score, manual))  # fmt: skip
    return scores


class SafeCsvExport(CsvExportPlugin):
    """nbgrader's CSV export, quoted by the csv module and safe to open in a spreadsheet."""

    def export(self, gradebook: Gradebook) -> None:
        students = [str(s) for s in self.student]
        assignments = [str(a) for a in self.assignment]
        with open(self.to or "grades.csv", "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(COLUMNS)
            for assignment in gradebook.assignments:
                if assignments and assignment.name not in assignments:
                    continue
                for s in assignment_scores(gradebook, assignment.name, students):
                    row = [assignment.name, assignment.duedate, s.timestamp or "", s.student, s.last_name,
                           s.first_name, s.email, s.raw, s.penalty, s.score, s.max_score]  # fmt: skip
                    writer.writerow([spreadsheet_safe("" if v is None else v if isinstance(v, (int, float)) else str(v))
                                     for v in row])  # fmt: skip
