"""Student HTML made harmless before anyone looks at it.

A submission's outputs and its Markdown are the student's: a ``<script>`` or an ``onerror=``
there would run in the formgrader (the instructor's logged-in Jupyter) and in the feedback page.
``SanitizeStudentHTML`` is nbconvert's own sanitizer (``SanitizeHTML``, on bleach), applied to what
the student wrote: every code cell's outputs, and the Markdown of answer cells and of the cells the
student added.  The lesson's own Markdown is left as the course wrote it (it is trusted, and
escaping it would show ``&lt;`` inside its code).  It runs while autograding, so the graded
notebook the formgrader shows is already clean, and again when feedback is generated.
"""

from __future__ import annotations

from nbconvert.preprocessors.sanitize import SanitizeHTML
from traitlets import default


class SanitizeStudentHTML(SanitizeHTML):
    """nbconvert's SanitizeHTML on the student's outputs and Markdown only."""

    @default("enabled")
    def _enabled(self):
        return True  # nbconvert's preprocessors are off unless enabled; in nbgrader's lists, on

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type == "markdown":
            meta = cell.metadata
            if not (meta.get("nbgrader", {}).get("solution") or meta.get("autograder", {}).get("added")):
                return cell, resources
        return super().preprocess_cell(cell, resources, cell_index)
