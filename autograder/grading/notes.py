"""Grading notes: what the grader repaired or stopped in a submission, and why.

Preprocessors add notes to ``resources["autograder_notes"]``; ``RecordNotes`` (the last step
of autograding) writes them into the graded notebook twice: as a Markdown cell at the top, which
the formgrader and the student's feedback show, and as ``metadata["autograder"]["notes"]``,
which ``python -m autograder report`` reads.

A grading that is cut short (``kill -9``, a power cut) must not count as done.  The graded
notebook is marked graded only by the last step, and while a submission is being graded its
graded copy's ``timestamp.txt`` reads the epoch: ``nbgrader autograde`` run again then sees the
submission as newer than its graded copy and grades it again (nbgrader's own rule), and
``python -m autograder grade`` grades again every notebook without the mark.

Only this run's notes are written.  The sanitizing pass starts from the submission, whose own
``metadata["autograder"]`` (if any) the student wrote and ``DropGraderMetadata`` removed, so
``RecordNotes`` writes the notes of this pass alone; the autograding pass starts from the
sanitizing pass's output, so ``RecordGradingNotes`` adds its notes to those.  A note quotes the
student's text (file names, cell ids), so the Markdown cell shows each note as plain text: no
Markdown in it renders, and a line break in it cannot start a bullet of its own.
"""

from __future__ import annotations

import os
import re

from nbformat.v4 import new_markdown_cell
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor

KEY = "autograder_notes"
REVIEW = "autograder_review"
NOTE_CELL_TAG = "autograder-notes"
IN_PROGRESS = "1970-01-01 00:00:00.000000 UTC"  # a graded copy's timestamp while it is being graded
MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation mark, escapable in CommonMark


def add_note(resources: dict, text: str) -> None:
    notes = resources.setdefault(KEY, [])
    if text not in notes:
        notes.append(text)


def add_review(resources: dict, text: str) -> None:
    """A check the grader could not decide from the student's code alone: it failed, and a person
    should look (``grade``'s summary, the report and its CSV say "needs review")."""
    items = resources.setdefault(REVIEW, [])
    if text not in items:
        items.append(text)
    add_note(resources, f"Needs review: {text}.")


def markdown_text(text: str) -> str:
    """``text`` as Markdown that renders it as it is, on one line: every punctuation mark escaped (no
    emphasis, link, HTML tag or heading from it), every line break a space."""
    return MARKDOWN_PUNCTUATION.sub(r"\\\1", " ".join(str(text).splitlines()))


def notebook_review(nb) -> list[str]:
    return list(nb.metadata.get("autograder", {}).get("review", []))


def notebook_notes(nb) -> list[str]:
    return list(nb.metadata.get("autograder", {}).get("notes", []))


def is_graded(nb) -> bool:
    """True once the last autograding step has run on this notebook."""
    return bool(nb.get("metadata", {}).get("autograder", {}).get("graded"))


class RecordNotes(NbGraderPreprocessor):
    """Write the grading notes into the sanitized notebook (a Markdown cell and its metadata),
    so that they reach the autograding pass, which runs on that file."""

    graded = False
    # Whether the notebook's own notes are this run's: only in the autograding pass, whose notebook
    # is the sanitizing pass's output; the sanitizing pass's notebook is the student's file.
    earlier_pass_notes = False

    def preprocess(self, nb, resources):
        notes = notebook_notes(nb) if self.earlier_pass_notes else []
        notes += [note for note in resources.get(KEY, []) if note not in notes]
        review = notebook_review(nb) if self.earlier_pass_notes else []
        review += [item for item in resources.get(REVIEW, []) if item not in review]
        nb.metadata["autograder"] = {"notes": notes, "graded": self.graded, "review": review}
        nb.cells = [c for c in nb.cells if NOTE_CELL_TAG not in c.metadata.get("tags", [])]
        if notes:
            lines = "\n".join(f"- {markdown_text(note)}" for note in notes)
            cell = new_markdown_cell(f"**Grading notes**\n\n{lines}")
            cell.metadata["tags"] = [NOTE_CELL_TAG]
            if nb.get("nbformat_minor", 5) < 5:
                cell.pop("id", None)  # cell ids came with nbformat 4.5
            nb.cells.insert(0, cell)
        self._stamp(resources)
        return nb, resources

    def _stamp(self, resources: dict) -> None:
        """The graded copy's timestamp: the epoch while grading runs, the submission's once done."""
        info = resources.get("nbgrader", {})
        if not info.get("student") or not info.get("assignment"):
            return
        coursedir = CourseDirectory(config=self.config)
        source = coursedir.format_path(coursedir.submitted_directory, info["student"], info["assignment"])
        graded = coursedir.format_path(coursedir.autograded_directory, info["student"], info["assignment"])
        stamp = os.path.join(source, "timestamp.txt")
        if not os.path.isfile(stamp) or os.path.islink(stamp) or not os.path.isdir(graded):
            return
        target = os.path.join(graded, "timestamp.txt")
        if self.graded:
            with open(stamp, encoding="utf-8", errors="replace") as f:
                text = f.read(200)
        else:
            text = IN_PROGRESS
        if os.path.lexists(target):
            os.remove(target)  # nbgrader's copy may be read-only
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)


class RecordGradingNotes(RecordNotes):
    """The last autograding step: the notes, and the mark that this notebook is fully graded
    (``python -m autograder grade`` regrades a notebook without it, e.g. after an interruption)."""

    graded = True
    earlier_pass_notes = True
