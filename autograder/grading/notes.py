"""Grading notes: what the grader repaired or stopped in a submission, and why.

Preprocessors add notes to ``resources["autograder_notes"]``; ``RecordNotes`` (the last step
of autograding) writes them into the graded notebook twice: as a Markdown cell at the top, which
the formgrader and the student's feedback show, and as ``metadata["autograder"]["notes"]``,
which ``python -m autograder report`` reads.
"""

from __future__ import annotations

from nbformat.v4 import new_markdown_cell
from nbgrader.preprocessors import NbGraderPreprocessor

KEY = "autograder_notes"
NOTE_CELL_TAG = "autograder-notes"


def add_note(resources: dict, text: str) -> None:
    notes = resources.setdefault(KEY, [])
    if text not in notes:
        notes.append(text)


def notebook_notes(nb) -> list[str]:
    return list(nb.metadata.get("autograder", {}).get("notes", []))


def is_graded(nb) -> bool:
    """True once the last autograding step has run on this notebook."""
    return bool(nb.get("metadata", {}).get("autograder", {}).get("graded"))


class RecordNotes(NbGraderPreprocessor):
    """Write the grading notes into the sanitized notebook (a Markdown cell and its metadata),
    so that they reach the autograding pass, which runs on that file."""

    graded = False

    def preprocess(self, nb, resources):
        notes = notebook_notes(nb)
        notes += [note for note in resources.get(KEY, []) if note not in notes]
        nb.metadata["autograder"] = {"notes": notes, "graded": self.graded}
        nb.cells = [c for c in nb.cells if NOTE_CELL_TAG not in c.metadata.get("tags", [])]
        if notes:
            lines = "\n".join(f"- {note}" for note in notes)
            cell = new_markdown_cell(f"**Grading notes**\n\n{lines}")
            cell.metadata["tags"] = [NOTE_CELL_TAG]
            if nb.get("nbformat_minor", 5) < 5:
                cell.pop("id", None)  # cell ids came with nbformat 4.5
            nb.cells.insert(0, cell)
        return nb, resources


class RecordGradingNotes(RecordNotes):
    """The last autograding step: the notes, and the mark that this notebook is fully graded
    (``python -m autograder grade`` regrades a notebook without it, e.g. after an interruption)."""

    graded = True
