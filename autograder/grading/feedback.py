"""Feedback that shows students the diagnosis of their mistake but not the hidden tests.

The autograded notebook holds the hidden tests (nbgrader puts them back to run them), and an
error's traceback quotes the lines of the cell that raised.  ``HideHiddenTests`` replaces each
hidden region by a one-line comment and cuts the traceback of those cells down to the error's
last line, which for the course's checks is the diagnosis (``NotYet: train_step: never_clears:
...``).  What the check printed (the ✅/❌ lines) stays.
"""

from __future__ import annotations

from nbgrader.preprocessors import ClearHiddenTests

PLACEHOLDER = "# (hidden tests ran here; their code is not shown)"


class HideHiddenTests(ClearHiddenTests):
    """Remove hidden test code from feedback, and the tracebacks that would quote it."""

    enforce_metadata = False  # feedback is made from graded notebooks; nothing to enforce

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type != "code" or self.begin_test_delimeter not in cell.source:
            return cell, resources
        lines, hidden, kept = cell.source.split("\n"), False, []
        for line in lines:
            if self.begin_test_delimeter in line:
                hidden = True
                kept.append(line[: len(line) - len(line.lstrip())] + PLACEHOLDER)
            elif self.end_test_delimeter in line:
                hidden = False
            elif not hidden:
                kept.append(line)
        cell.source = "\n".join(kept)
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources
