"""A student the grader creates gets "—" for a name, so the formgrader never shows "None, None".

``nbgrader autograde`` (and so ``python -m autograder grade``) creates each student it has not met in
the gradebook, with no first or last name: ``zip_collect`` and the exchange give it only an id.  The
formgrader's Manage Students page writes a missing name as the word "None" ("None, None"), which reads
as an error.  ``NameUnnamedStudent``, a sanitizing step, gives such a student "—" for both names right
after autograde created it; a student with any name of their own (a roster imported with
``nbgrader db student import``, before or after) keeps it, and importing a roster later replaces the
dashes.

The exports read "—" as no name (``export.known_name``): grades.csv leaves the cells empty and the
Canvas file names the student by id, as for a student nobody named.  Nothing here reads the submission.
"""

from __future__ import annotations

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor

NO_NAME = "—"


class NameUnnamedStudent(NbGraderPreprocessor):
    """Give the student being graded "—" as first and last name when the gradebook has neither."""

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
            if found.first_name is None and found.last_name is None:
                found.first_name = found.last_name = NO_NAME
                gb.db.commit()
        return nb, resources
