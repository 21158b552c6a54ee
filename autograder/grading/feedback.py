"""Feedback that shows students the diagnosis of their mistake but not the hidden tests, in a page
that cannot run anything.

The autograded notebook holds the hidden tests (nbgrader puts them back to run them), and an
error's traceback quotes the lines of the cell that raised.  ``HideHiddenTests`` replaces each
hidden region by a one-line comment and cuts the traceback of those cells down to one line: for
the course's checks the line that the cell counts as failed (``checks.FAILED_LINE``; the diagnosis
is in the ❌ line the check printed), for any other error its last line.
What the check printed (the ✅/❌ lines) stays.

``FeedbackPage`` is nbgrader's feedback exporter (nbconvert's HTMLExporter with nbgrader's feedback
template) whose page carries its own Content-Security-Policy in a ``<meta>`` at the top of its
``<head>``: wherever the page is opened (the student's JupyterLab, the formgrader, a file on disk),
no script runs in it, not even from a ``javascript:`` link that got past the sanitizer
(``sanitize.py``), and nothing loads from elsewhere; its inline styles and embedded figures do.
"""

from __future__ import annotations

import re
from html import escape

from nbconvert.exporters import HTMLExporter
from nbgrader.preprocessors import ClearHiddenTests
from traitlets import Unicode

from ..checks import FAILED_LINE
from .sanitize import PAGE_POLICY

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
            if output.get("output_type") == "error" and output.get("ename") == "NotYet":
                output["traceback"] = [FAILED_LINE]  # the ❌ line printed above says what to fix
            elif output.get("output_type") == "error":
                output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources


class FeedbackPage(HTMLExporter):
    """nbgrader's feedback page with a Content-Security-Policy of its own."""

    content_security_policy = Unicode(
        PAGE_POLICY,
        help="The policy put in the page's <head>: by default nothing runs or loads but its inline styles and "
        "data: images (MathJax, loaded from the web by nbgrader's template, stays off: formulas show as TeX).",
    ).tag(config=True)

    def from_notebook_node(self, nb, resources=None, **kw):
        page, resources = super().from_notebook_node(nb, resources, **kw)
        return with_policy(page, self.content_security_policy), resources


def with_policy(page: str, policy: str) -> str:
    """The page with a CSP <meta> first in its <head> (a policy covers only what follows it)."""
    head = re.search(r"<head(\s[^>]*)?>", page, re.IGNORECASE)
    if head is None:
        raise ValueError("the page has no <head> to put its Content-Security-Policy in")
    meta = f'\n<meta http-equiv="Content-Security-Policy" content="{escape(policy)}">'
    return page[: head.end()] + meta + page[head.end() :]
