"""A student the grader creates gets "—" for a name, so the formgrader never shows "None, None".

``nbgrader autograde`` (and so ``python -m autograder grade``) creates each student it has not met in
the gradebook, with no first or last name: ``zip_collect`` and the exchange give it only an id.  The
formgrader's Manage Students page writes a missing name as the word "None" ("None, None"), which reads
as an error.  ``NameUnnamedStudent``, a sanitizing step, gives such a student "—" for both names right
after autograde created it; a student with any name of their own (a roster imported with
``nbgrader db student import``, before or after) keeps it, and importing a roster later replaces the
dashes.

On a hub with LTI logins, the names and email come from the LMS instead: the course's LMS record
(``lms_record.py``, the folder in ``AUTOGRADER_LMS_RECORD`` or ``NameUnnamedStudent.lms_record``)
holds what each student's launches carried.  A student with no name in the gradebook (none, or the
dashes) gets ``given_name``/``family_name`` (else the launch's ``name`` as first name); one with no
email gets the launch's ``email``.  What the gradebook already has (an instructor's typing, an
imported roster) is never overwritten.  This is the one place: nbgrader's autograde creates the
student (``Gradebook.update_or_create_student`` with nothing but the id) just before, for
``python -m autograder grade`` and plain ``nbgrader autograde`` alike.

The exports read "—" as no name (``export.known_name``): grades.csv leaves the cells empty and the
Canvas file names the student by id, as for a student nobody named.  Nothing here reads the submission.
"""

from __future__ import annotations

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode, default

from ..settings import SETTINGS
from .lms_record import LmsRecordError, RecordFolder, person_of

NO_NAME = "—"


def fill_from_lms(student, person: dict) -> bool:
    """Give the gradebook's ``student`` the LMS's names and email where it has none; True if changed."""
    changed = False
    unnamed = student.first_name in (None, "", NO_NAME) and student.last_name in (None, "", NO_NAME)
    first = person.get("given_name") or (None if person.get("family_name") else person.get("name"))
    if unnamed and (first or person.get("family_name")):
        student.first_name, student.last_name = first or NO_NAME, person.get("family_name") or NO_NAME
        changed = True
    if not student.email and person.get("email"):
        student.email = person["email"]
        changed = True
    return changed


class NameUnnamedStudent(NbGraderPreprocessor):
    """Give the student being graded the LMS's names and email, else "—" as first and last name,
    when the gradebook has none."""

    lms_record = Unicode(
        help="The course's LMS record folder, kept by the hub (default: $AUTOGRADER_LMS_RECORD; empty: none)."
    ).tag(config=True)

    @default("lms_record")
    def _lms_record_default(self) -> str:
        return SETTINGS.value("lms_record")

    def _person(self, student: str) -> dict:
        """What the LMS record knows of ``student``; {} without a record, or when it cannot be read
        (said in the log: the names wait, the grading does not)."""
        if not self.lms_record:
            return {}
        try:
            return person_of(RecordFolder(self.lms_record).load(), student)
        except LmsRecordError as error:
            self.log.warning("no names from the LMS record: %s", error)
            return {}

    def preprocess(self, nb, resources):
        student = resources.get("nbgrader", {}).get("student")
        if not student:
            return nb, resources
        coursedir = CourseDirectory(config=self.config)
        with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
            try:
                found = gb.find_student(student)
            except MissingEntry:
                return nb, resources  # not created by autograde (a dry run): nothing to name
            changed = fill_from_lms(found, self._person(student))
            if found.first_name is None and found.last_name is None:
                found.first_name = found.last_name = NO_NAME
                changed = True
            if changed:
                gb.db.commit()
        return nb, resources
