"""Feedback that shows students the diagnosis of their mistake but not the hidden tests, in a page
that cannot run anything, and that a student reads in ten seconds.

``CheckSummary`` (in the feedback and in the formgrader's view of a submission: ``nbgrader_config.py``
adds it to ``HTMLExporter.preprocessors``, which both exporters read) puts a summary first: each
exercise, ✅ or ❌, its code and the one-line fix.  It reads the verdicts from the test cells'
metadata (``metadata.autograder.checks``, written by ``ScoreChecks``), never from their printed
text, and rewrites each test cell's output from them: each distinct verdict once (checks that differ
only in the scenario they were seen with are one verdict), the fix first, no grader exception name.
Whatever the checks printed or raised before (the same verdict per seed, then a ``NotYet: ...``
error; a hidden traceback tomorrow), the view is the same.

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

Every sentence the page adds is in the learner's language (``autograder.i18n``: the grader opens
``speaking(<the edition's language>)`` around a submission), and nothing here parses a message's
English: the case a verdict was seen with is cut by ``verdict.strip_case`` in the same language, and
an answer cell that raised is recognised by its code and the canonical message's cell and line.
"""

from __future__ import annotations

import re
from html import escape

import nbformat
from nbconvert.exporters import HTMLExporter
from nbconvert.preprocessors import Preprocessor
from nbgrader.preprocessors import ClearHiddenTests
from traitlets import List, Unicode

from gradebox.display import NOT_PASSED, PASSED, meaning_lines, shown_lines, wrapped

from .. import codes as code_table
from ..i18n import N_, _, checked, speaking
from ..verdict import strip_case
from .language import learner_language
from .sanitize import PAGE_POLICY

# i18n: a Python comment put where the hidden tests' code was: keep the "# " in front
PLACEHOLDER = N_("# (hidden tests ran here; their code is not shown)")
SUMMARY_ID = "autograder-summary"
STOPPED = ("NotRun", "KernelStopped")
# Long verdicts wrap inside their box instead of running past its right edge.
WRAP_CSS = "<style>.output_area pre, .output_subarea pre { white-space: pre-wrap; overflow-wrap: break-word; }</style>"


def split_fix(message: str) -> tuple[str, str]:
    """(the fix, what happened) of a check's message: its first sentence says what the function did,
    the rest how to fix it ("Call optimizer.zero_grad() at the start of every call ...").  A message
    of one sentence is all fix.  The scenario it was seen with, "(seen with ...)", is left out
    (``strip_case``, in the language the message was written in, which is today's)."""
    text = strip_case(message)
    parts = re.split(r"(?<=[.!?])\s+(?=[A-ZÀ-ÖØ-Þ])", text, maxsplit=1)  # Portuguese: "É", "Ó"
    if len(parts) == 2 and parts[1].strip():
        return parts[1].strip(), parts[0].strip()
    return text, ""


def _checks(cell) -> list[dict]:
    return cell.get("metadata", {}).get("autograder", {}).get("checks") or []


def distinct_verdicts(checks: list[dict]) -> list[dict]:
    """One entry per distinct (exercise, passed, code, fix, what), in order."""
    seen, found = set(), []
    for check in checks:
        shown = check.get("shown")  # what the learner reads, in their language (ScoreChecks writes both)
        fix, what = split_fix(shown if isinstance(shown, str) and shown else str(check.get("message", "")))
        key = (check.get("exercise"), bool(check.get("passed")), check.get("code"), fix, what)
        if key not in seen:
            seen.add(key)
            found.append({"exercise": key[0], "passed": key[1], "code": key[2], "fix": fix, "what": what})
    return found


def summary_rows(nb) -> list[dict]:
    """Per exercise, in notebook order: its first failed verdict, or its pass."""
    rows: dict[str, dict] = {}
    for cell in nb.cells:
        for verdict in distinct_verdicts(_checks(cell)):
            row = rows.get(verdict["exercise"])
            if row is None or (row["passed"] and not verdict["passed"]):
                rows[verdict["exercise"]] = verdict
    return list(rows.values())


def _cell_text(text: str) -> str:
    """Text for a Markdown table cell: no line breaks, no pipes, no HTML."""
    return escape(" ".join(text.split()), quote=False).replace("|", "\\|")


def summary_markdown(rows: list[dict]) -> str:
    lines = [
        "## " + _("Your results at a glance"),
        "",
        # i18n: the summary table's header: four columns, keep the three | between them
        "| " + _("exercise | result | code | what to do") + " |",
        "| --- | --- | --- | --- |",
    ]
    for row in map(_with_error_fix, rows):
        mark = f"✅ {_(PASSED)}" if row["passed"] else f"❌ {_(NOT_PASSED)}"
        # i18n: the "what to do" column of an exercise that passed
        todo = _("nothing: well done") if row["passed"] else _cell_text(row["fix"])
        lines.append(f"| `{row['exercise']}` | {mark} | `{row['code']}` | {todo} |")
    legend = code_legend(rows)
    if legend:
        lines += ["", _("What the codes mean:"), ""]
        lines += [f"- `{code}` ({exercise}): {words}" for exercise, code, words in legend]
    more = _("Each test cell below says more; the graders ran more scenarios than your notebook's test cells.")
    lines += ["", more]
    return "\n".join(lines)


def code_meaning(exercise: str, code: str) -> str:
    """The code's meaning in words, with the meaning of every other code it names ("" for a code the
    tables do not know, e.g. an error's name)."""
    return code_table.in_words(exercise, code)


def code_legend(rows: list[dict]) -> list[tuple[str, str, str]]:
    """(exercise, code, meaning) for each code of a failed verdict, once each: every code the summary
    names is explained on the page (``ok`` needs no words)."""
    seen, found = set(), []
    for row in rows:
        key = (str(row["exercise"]), str(row["code"]))
        words = code_meaning(*key)
        if not row["passed"] and words and key not in seen:
            seen.add(key)
            found.append((*key, _cell_text(words).replace("\\|", "|")))
    return found


# How the judge words an exception the student's code raised (``judge.error_verdict``): the same
# msgids, so that the page finds them in the language the message was written in, today's.
RAISED = (
    N_("Your function raised {kind} at {where}: {message}"),
    N_("Your function raised {kind}: {message}"),
    N_("Your function raised {kind} at {where}."),
    N_("Your function raised {kind}."),
)
# An error Python raised where it compiled the code: "SyntaxError: invalid syntax (<In [7] of your
# notebook>, line 4)": the error's name, its text and where, all Python's own words in any language.
# The last such place when there are several, as the report's short_reason says it.
_RAISED_IN_CELL = re.compile(r"\b([A-Z]\w*): .*\(<([^<>]*)>, line (\d+)\)", re.DOTALL)
# The scoring job's own words (gradebox/jobs/score_job.py, English in every edition) when no function was defined
# because an answer cell raised: "... (a cell raised NameError: name 'x' is not defined)."
_CELL_RAISED = re.compile(r"\(a cell raised (\w+): ")


def _template_pattern(template: str) -> re.Pattern:
    """``template`` (one of ``RAISED``, translated) as a pattern whose groups are its fields."""
    fields = {"kind": r"(?P<kind>\w+)", "where": r"(?P<where>.*?)", "message": r"(?P<message>.*)"}
    parts = re.split(r"\{(\w+)\}", template)
    return re.compile("".join(fields[p] if i % 2 else re.escape(p) for i, p in enumerate(parts)), re.DOTALL)


def raised_in(fix: str) -> tuple[str, str, str] | None:
    """(error name, the cell, its line) of an exception Python raised compiling an answer cell, or
    (error name, "", "") of one the judge reported as raised by the function (``RAISED``, in today's
    language); ``None`` for any other message."""
    found = _RAISED_IN_CELL.search(fix)
    if found:
        return found[1], found[2], found[3]
    for template in RAISED:
        found = _template_pattern(_(template)).search(fix)
        if found:
            return found["kind"], "", ""
    found = _CELL_RAISED.search(fix)
    return (found[1], "", "") if found else None


def _with_error_fix(verdict: dict) -> dict:
    """For an answer cell that raised before the function existed, the fix names that cell and line
    ("SyntaxError on line 3 of In [7] of your notebook: fix that cell, ..."); the grader's sentence
    becomes the what.  Recognised by its code and the judge's own sentence in today's language
    (``RAISED``), never by English words."""
    found = None if verdict["passed"] or verdict["code"] != "error" else raised_in(verdict["fix"])
    if found is None:
        return verdict
    error, cell, line = found
    if cell:
        # As the report says it (grading/report.short_reason): a cell without a label is "cell 3".
        cell = f" of {cell}".replace(" of answer cell ", " of cell ")[len(" of ") :]
        # i18n: {error} is a Python error's name (SyntaxError), {cell} where it is ("In [7] of your notebook")
        fix = _("{error} on line {line} of {cell}: fix that cell, run it, then run the test cells again.")
    else:
        # i18n: {error} is a Python error's name (ZeroDivisionError)
        fix = _("{error} raised: fix that cell, run it, then run the test cells again.")
    fix = fix.format(error=error, line=line, cell=cell)
    return {**verdict, "fix": fix, "what": " ".join(filter(None, [verdict["what"], verdict["fix"]]))}


def verdict_text(verdicts: list[dict], stopped: bool) -> str:
    lines = []
    if stopped:
        lines.append(
            _("(Your notebook was stopped before this cell ran; the grader checked your answer cells all the same.)")
        )
    for v in map(_with_error_fix, verdicts):
        if v["passed"]:
            lines += shown_lines(v["exercise"], v["code"], True, v["what"] or v["fix"])
        else:
            lines += shown_lines(v["exercise"], v["code"], False, v["fix"], fix_label=_("To fix:"))
            if v["what"]:
                lines += wrapped(_("What the grader saw: {what}").format(what=v["what"]))
            lines += meaning_lines(str(v["code"]), code_meaning(str(v["exercise"]), str(v["code"])))
    return "\n".join(lines) + "\n"


def page_language(nb, resources) -> str:
    """The language the verdicts were shown in when graded (each check records it), else the edition's."""
    for cell in nb.cells:
        for check in _checks(cell):
            said = checked(check.get("language")) if isinstance(check, dict) else None
            if said:
                return said
    return learner_language(nb, resources)


class CheckSummary(Preprocessor):
    """A summary of the verdicts on top, and each test cell's verdicts once each (see the module)."""

    def preprocess(self, nb, resources):
        with speaking(page_language(nb, resources)):
            return self._preprocess(nb, resources)

    def _preprocess(self, nb, resources):
        rows = summary_rows(nb)
        if not rows:
            return nb, resources
        for cell in nb.cells:
            checks = _checks(cell)
            if cell.cell_type != "code" or not checks:
                continue
            stopped = any(
                o.get("output_type") == "error" and o.get("ename") in STOPPED for o in cell.get("outputs", [])
            )
            cell.outputs = [
                nbformat.v4.new_output("stream", name="stdout", text=verdict_text(distinct_verdicts(checks), stopped))
            ]
        if not any(c.get("id") == SUMMARY_ID for c in nb.cells):
            nb.cells.insert(0, nbformat.v4.new_markdown_cell(summary_markdown(rows), id=SUMMARY_ID))
        return nb, resources


class HideHiddenTests(ClearHiddenTests):
    """Remove hidden test code from feedback, and the tracebacks that would quote it."""

    enforce_metadata = False  # feedback is made from graded notebooks; nothing to enforce
    # nbconvert's HTMLExporter configures NbConvertBase.display_data_priority, which every preprocessor
    # inherits; nbgrader's base class redeclares it without config=True, so traitlets warned on every
    # run that this class does not recognise it.  Declared configurable here, the setting applies.
    display_data_priority = List(
        ["text/html", "application/pdf", "text/latex", "image/svg+xml", "image/png", "image/jpeg", "text/plain"]
    ).tag(config=True)

    def preprocess(self, nb, resources):
        with speaking(page_language(nb, resources)):
            return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type != "code":
            return cell, resources
        # Every traceback is cut to its last line, as docs/instructor.md says: also those of the "Try it"
        # cells, which quote the student's code and the course's, not only those of hidden tests.
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        if self.begin_test_delimeter not in cell.source:
            return cell, resources
        lines, hidden, kept = cell.source.split("\n"), False, []
        for line in lines:
            if self.begin_test_delimeter in line:
                hidden = True
                kept.append(line[: len(line) - len(line.lstrip())] + _(PLACEHOLDER))
            elif self.end_test_delimeter in line:
                hidden = False
            elif not hidden:
                kept.append(line)
        cell.source = "\n".join(kept)
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
        page = with_policy(page, self.content_security_policy)
        return page.replace("</head>", WRAP_CSS + "\n</head>", 1), resources


def with_policy(page: str, policy: str) -> str:
    """The page with a CSP <meta> first in its <head> (a policy covers only what follows it)."""
    head = re.search(r"<head(\s[^>]*)?>", page, re.IGNORECASE)
    if head is None:
        raise ValueError("the page has no <head> to put its Content-Security-Policy in")
    meta = f'\n<meta http-equiv="Content-Security-Policy" content="{escape(policy)}">'
    return page[: head.end()] + meta + page[head.end() :]
