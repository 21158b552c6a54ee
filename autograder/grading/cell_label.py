"""How a message names a cell of the student's notebook: as the student's own notebook shows it.

A syntax error is reported as "SyntaxError on line 4 of <cell>".  The graded copy's prompt (``In [20]``)
is the grading kernel's count, which the student never saw: their notebook shows its own counts, in
whatever order they ran the cells.  So the cell is named by what the *submission* showed:

- ``In [7] of your notebook``: the execution count the submitted cell had;
- ``cell 12 of your notebook``: its position among the submission's cells (from the top, counting
  Markdown cells too), when it had no count (never run, or outputs cleared before handing in).

``RestoreStructure`` reads the submission before nbgrader's ``ClearOutput`` empties the counts, and
writes the label into the answer cell's ``metadata.autograder.seen_as`` (and each cell the student
added); ``ScoreChecks`` reads it back to name the cell in the job's messages.  The submission's
count is the student's data: only a plain integer in a sane range makes a label, which is our own text;
anything else names the cell by its position.  ``DropGraderMetadata`` has removed any ``seen_as`` the
student wrote before, so a label always comes from this grading.
"""

from __future__ import annotations

SEEN_AS = "seen_as"
_LARGEST_COUNT = 10**9  # an execution count no notebook reaches: beyond it, the number is not a count


def student_label(submitted_cell, position: int) -> str:
    """The submitted cell as its student's notebook shows it (``position`` counts from 0)."""
    count = submitted_cell.get("execution_count") if hasattr(submitted_cell, "get") else None
    if type(count) is int and 0 < count < _LARGEST_COUNT:
        return f"In [{count}] of your notebook"
    return f"cell {position + 1} of your notebook"


def recorded_label(cell) -> str | None:
    """The label ``RestoreStructure`` wrote into a cell, or None (a notebook graded as submitted)."""
    label = cell.get("metadata", {}).get("autograder", {}).get(SEEN_AS)
    return label if isinstance(label, str) and label else None
