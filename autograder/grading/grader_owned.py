"""Only this grading run speaks as the grader: a submission loses the metadata the grader writes.

The grader keeps what it found in the graded notebook's metadata, and reads it back from there:

- ``metadata.autograder`` of the notebook: the grading notes, the checks that need review and the
  mark that grading ran to its end (``notes.py``), which ``grade``'s summary, the report and its CSV
  read;
- ``metadata.autograder`` of a cell: the checks' verdicts (``checks``, written by ``ScoreChecks``,
  read by the feedback, the formgrader's summary and the report), a quick-check answer (``quiz``),
  and the mark of a cell the student added (``added``, whose code is scored with the answers);
- the ``autograder-notes`` tag of the Markdown cell that shows the notes.

A submission is a notebook file the student wrote, so each of these may already be in it, with any
content: notes that read as the grader's, review items, passing verdicts, control characters for
the instructor's terminal.  ``DropGraderMetadata`` is the first of the sanitizing preprocessors
(nbgrader_config.py), so ``nbgrader autograde`` and ``python -m autograder grade``, which builds
its pipeline from the same settings, both run it before anything reads or writes a note: every
grader-owned key leaves the submission, the notebook's and every cell's, whatever the cell (one the
release does not know, or every cell when the released notebook is missing).  What the graded copy
then says in the grader's name was written by this run; a copy graded before (a student who hands
in a graded notebook, an instructor who grades one again) has its old notes replaced, not merged.

nbgrader's own cell metadata (``metadata.nbgrader``) is not the grader's to drop: ``RestoreStructure``
gives every cell of the release its released metadata and takes it from the cells a student added,
and nbgrader's ``OverwriteCells`` then puts the gradebook's back on every graded cell.
"""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from .notes import NOTE_CELL_TAG

KEY = "autograder"  # the grader's key in the notebook's and in each cell's metadata
TAGS = (NOTE_CELL_TAG,)  # cell tags the grader gives its own cells


def drop_grader_metadata(nb) -> int:
    """Remove every grader-owned key and tag from ``nb`` (in place); how many were there."""
    dropped = int(nb.get("metadata", {}).pop(KEY, None) is not None)
    for cell in nb.get("cells", []):
        meta = cell.get("metadata")
        if not isinstance(meta, dict):
            continue
        dropped += meta.pop(KEY, None) is not None
        tags = meta.get("tags")
        if isinstance(tags, list) and any(tag in TAGS for tag in tags):
            meta["tags"] = [tag for tag in tags if tag not in TAGS]  # the cell stays, as the student's
            dropped += 1
    return dropped


class DropGraderMetadata(NbGraderPreprocessor):
    """Sanitizing, first: the submission's grader-owned metadata goes (see the module's docstring)."""

    def preprocess(self, nb, resources):
        dropped = drop_grader_metadata(nb)
        if dropped:
            self.log.info("Dropped %d grader-owned metadata entries from the submission", dropped)
        return nb, resources
