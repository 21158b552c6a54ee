"""What a course folder holds for one assignment: its nbgrader settings (from the course's own
nbgrader_config.py), the submissions, which are graded to the end, and the graded notebooks.

``grade`` and ``report`` both read a course through this; neither imports the other.
"""

from __future__ import annotations

import glob
import hashlib
import logging
import os
import stat

import nbformat

from .course_folder import CourseFolder, CourseFolderOpen, say
from .ledger import read_ledger
from .notes import is_graded

#: The ledger's field for the fingerprint of the notebooks a grading read (``CourseAssignment.fingerprint``).
GRADED_FROM = "graded_from"


class GradeError(Exception):
    """The command cannot run (unknown assignment, no gradebook, ...); nothing was done."""


class CourseAssignment:
    """One assignment of a course folder, with nbgrader's settings as ``nbgrader autograde`` has them."""

    def __init__(self, folder: str, assignment: str) -> None:
        from nbgrader.apps import AutogradeApp

        self.folder = os.path.abspath(folder)
        if not os.path.isfile(os.path.join(self.folder, "nbgrader_config.py")):
            raise GradeError(f"{self.folder} is not a course folder: it has no nbgrader_config.py.")
        self.assignment = assignment
        # Before anything is read or written: what grading made at the top of the course folder under
        # a looser umask (a SQLite gradebook, grades.csv) is closed to other accounts, or nothing runs.
        try:
            say(CourseFolder(self.folder).close())
        except CourseFolderOpen as error:
            raise GradeError(str(error)) from None
        here = os.getcwd()
        os.chdir(self.folder)
        try:
            self.app = AutogradeApp()
            self.app.initialize([])
        finally:
            os.chdir(here)
        self.app.log.setLevel(logging.WARNING)
        self.app.log.propagate = False
        self.coursedir = self.app.coursedir
        self._check()

    def _check(self) -> None:
        from nbgrader.api import Gradebook, MissingEntry

        self._check_pipeline()
        db_url = self.coursedir.db_url
        if db_url.startswith("sqlite:///") and not os.path.isfile(db_url[len("sqlite:///") :]):
            raise GradeError(
                f"No gradebook at {db_url[len('sqlite:///') :]}. Create it by releasing the assignment "
                f"first: nbgrader generate_assignment {self.assignment}"
            )
        with Gradebook(db_url, self.coursedir.course_id) as gb:
            try:
                gb.find_assignment(self.assignment)
            except MissingEntry:
                known = ", ".join(sorted(a.name for a in gb.assignments)) or "none"
                raise GradeError(f"Unknown assignment {self.assignment!r}: the gradebook knows {known}.") from None

    #: What must run in every grading: student code only in the sandbox, checks scored outside it.
    REQUIRED = ("autograder.grading.execute.SandboxedExecute", "autograder.grading.score.ScoreChecks")

    def _check_pipeline(self) -> None:
        """Refuse to grade with a pipeline that would run student code outside the sandbox (the course's
        nbgrader_config.py not read, or its preprocessors replaced): stock nbgrader's Execute runs it
        in a plain kernel, and nothing scores the checks."""
        configured = self.app.config.get("Autograde", {}).get("autograde_preprocessors", [])
        names = [p if isinstance(p, str) else f"{p.__module__}.{p.__name__}" for p in configured]
        missing = [name for name in self.REQUIRED if name not in names]
        if missing:
            raise GradeError(
                f"{self.folder}/nbgrader_config.py does not set c.Autograde.autograde_preprocessors with "
                f"{' and '.join(missing)}: student code would run outside the sandbox, so nothing was graded."
            )

    def check_secret(self) -> None:
        """A course secret that cannot be used stops the run before any notebook runs, rather than
        failing every submission after its kernel ran (the hidden checks need it)."""
        from .score import ScoreChecks
        from .secret import SecretError

        here = os.getcwd()
        os.chdir(self.folder)
        try:
            ScoreChecks(config=self.app.config).secret()
        except SecretError as error:
            raise GradeError(str(error)) from None
        finally:
            os.chdir(here)

    def folder_of(self, kind: str, student: str) -> str:
        """``submitted``, ``autograded`` or ``feedback`` folder of one student's assignment."""
        name = getattr(self.coursedir, f"{kind}_directory")
        return self.coursedir.format_path(name, student, self.assignment)

    def submissions(self) -> list[str]:
        pattern = self.coursedir.format_path(self.coursedir.submitted_directory, "*", self.assignment)
        students = sorted(os.path.basename(os.path.dirname(path)) for path in glob.glob(pattern) if os.path.isdir(path))
        return [s for s in students if not s.startswith(".")]

    def graded_notebooks(self, student: str) -> list:
        return [
            nbformat.read(p, as_version=4)
            for p in sorted(glob.glob(os.path.join(self.folder_of("autograded", student), "*.ipynb")))
        ]

    def is_complete(self, student: str) -> bool:
        """Graded to the end, and not older than the submission."""
        graded_dir, source_dir = self.folder_of("autograded", student), self.folder_of("submitted", student)
        names = [os.path.basename(p) for p in glob.glob(os.path.join(source_dir, "*.ipynb"))]
        if not names:
            return False
        for name in names:
            try:
                if not is_graded(nbformat.read(os.path.join(graded_dir, name), as_version=4)):
                    return False
            except Exception:  # noqa: BLE001 - missing or unreadable: not complete
                return False
        submitted = self.coursedir.get_existing_timestamp(source_dir)
        graded = self.coursedir.get_existing_timestamp(graded_dir)
        if submitted and graded and submitted > graded:
            return False
        # A new LMS download replaces the notebook and writes no timestamp.txt (nor does a copy by hand):
        # the submission is graded again when its notebooks are not those the last grading read.
        recorded = read_ledger(self.folder, self.assignment).get(student, {})
        was = recorded.get(GRADED_FROM) if isinstance(recorded, dict) else None
        return was is None or was == self.fingerprint(student)

    def fingerprint(self, student: str) -> str | None:
        """SHA-256 over the names and bytes of a submission's notebooks; None if one cannot be read as a
        plain file (grading says why).  A link is not followed: the submission is the student's."""
        digest = hashlib.sha256()
        folder = self.folder_of("submitted", student)
        for path in sorted(glob.glob(os.path.join(glob.escape(folder), "*.ipynb"))):
            try:
                descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                return None
            with open(descriptor, "rb") as f:
                if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                    return None  # a FIFO or a device: never read (the intake hook moves them out)
                digest.update(os.path.basename(path).encode() + b"\0")
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
                digest.update(b"\0")
        return digest.hexdigest()
