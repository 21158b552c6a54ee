"""``python -m autograder report``: what a class got right and wrong, and what to teach next.

It reads the gradebook (scores) and the graded notebooks (each check's verdict), and writes one
self-contained HTML page (plots embedded as PNG) and a CSV with a row per student.  The page
leads with what an instructor acts on:

- what to teach next: per exercise, the misconceptions the grader diagnosed, split by diagnosis
  code, each code with its meaning in words, how many students got it (and who), and the lesson
  section to read again (``autograder/codes.py``); exercises most missed first;
- what was not judged: answers the grader could not judge (left unanswered, a syntax or other
  error, a notebook stopped before the test): a list to check, one line per student and exercise
  with the reason ("SyntaxError on line 3 of In [7] of your notebook": the cell as the student's own
  notebook shows it, see ``cell_label.py``), never re-read advice, since nothing about the student's
  understanding is known;
- the score distribution and the pass rate of each exercise;
- the quick-check answers (not graded): how many chose each answer;
- a table of students with their codes and grading notes, and the submissions not graded.

Student ids, quiz answers, grading notes and error names are the students' text: the page escapes
every value, and carries a Content-Security-Policy that lets nothing run or load but its own inline
styles and embedded plots, wherever it is opened.

The page and ``grade``'s class table are written in today's ``autograder.i18n`` language, which the
command sets from the instructor's setting (``language.instructor_language``): every sentence is a
whole msgid with named fields (the template's ``_``, ``ngettext`` and ``pgettext`` escape the
catalogue's text, then fill the fields, escaping the students' values).  What stays as it is: codes,
exercise names, student ids, the students' and the grading notes' text, the lesson sections to read
again (``codes.REVISIT``'s English headings), and the CSV, which is always English (its columns,
codes and reasons are read by programs).

A test cell's verdicts are read from its metadata (``metadata.autograder.checks``, written by
``ScoreChecks``: one code per check, ``unanswered`` for an answer cell left as handed out).  A
cell without them (a notebook stopped by a limit before it, an older graded copy) is read from
its error: ``NotYet("<exercise>: <code>: <message>")``, or the error's name (``NotRun``,
``KernelStopped``, ...).  Quick-check answers come from ``metadata.autograder.quiz``.
"""

from __future__ import annotations

import base64
import csv
import io
import os
import re
from collections import Counter
from dataclasses import dataclass, field

from .. import codes as code_table
from ..i18n import ENGLISH, N_, _, language, ngettext, pgettext, speaking
from .course_assignment import CourseAssignment, GradeError
from .csv_export import spreadsheet_safe
from .ledger import read_ledger
from .sanitize import PAGE_POLICY
from .terminal import terminal_safe

UNANSWERED = "unanswered"
# Codes that say the grader could not judge the answer, not what the student misunderstands.
NOT_JUDGED = (UNANSWERED, "error", "timeout", "NotRun", "KernelStopped", "NotDefined")
# A row's reason when the report itself says why (kept English in the row and the CSV; said in the
# report's language where shown).  Every other reason is the grader's or nbgrader's, shown as it is.
NO_GRADE = N_("graded notebook found, but the gradebook has no grade")
NOT_GRADED_YET = N_("not graded yet (run python -m autograder grade)")


@dataclass
class StudentRow:
    student: str
    status: str  # "graded", "failed" or "not graded"
    score: float | None = None
    max_score: float | None = None
    codes: dict[str, str] = field(default_factory=dict)  # exercise -> "ok" or the first mistake
    reasons: dict[str, str] = field(default_factory=dict)  # exercise -> one line on why it was not judged
    quiz: dict[str, str | None] = field(default_factory=dict)  # question -> the answer given (None: blank)
    notes: list[str] = field(default_factory=list)
    reason: str = ""
    review: list[str] = field(default_factory=list)  # checks the grader could not decide alone


@dataclass
class Mistake:
    """One diagnosis code of one exercise, as the class got it."""

    code: str
    meaning: str
    section: str
    students: list[str]


@dataclass
class ClassReport:
    assignment: str
    exercises: list[str]
    rows: list[StudentRow]
    quiz_keys: dict[str, str | None] = field(default_factory=dict)  # question -> right answer, when known

    def __post_init__(self):
        self.rows.sort(key=lambda r: r.student)  # by id, in every table and file: the same order each time

    def graded(self) -> list[StudentRow]:
        return [r for r in self.rows if r.status == "graded"]

    def pass_rate(self, exercise: str) -> float | None:
        graded = [r for r in self.graded() if exercise in r.codes]
        return sum(r.codes[exercise] == "ok" for r in graded) / len(graded) if graded else None

    def code_counts(self, exercise: str) -> Counter:
        return Counter(r.codes[exercise] for r in self.graded() if exercise in r.codes)

    def mistakes(self, exercise: str) -> list[Mistake]:
        """The misconceptions (codes other than ok that are not in ``NOT_JUDGED``), most frequent first."""
        who: dict[str, list[str]] = {}
        for row in self.graded():
            code = row.codes.get(exercise)
            if code and code != "ok" and not judged_not(code):
                who.setdefault(code, []).append(row.student)
        order = sorted(who, key=lambda c: (-len(who[c]), c))
        return [Mistake(c, _explained(exercise, c), code_table.revisit(exercise, c), who[c]) for c in order]

    def not_judged(self) -> list[tuple[str, str, str, str]]:
        """(student, exercise, code, reason) for every answer the grader could not judge, by student."""
        found = []
        for row in self.graded():
            for exercise in self.exercises:
                code = row.codes.get(exercise)
                if code and judged_not(code):
                    found.append((row.student, exercise, code, row.reasons.get(exercise) or _meaning(exercise, code)))
        return found

    def teach_next(self) -> list[tuple[str, int, int, int, list[Mistake]]]:
        """(exercise, students who did not pass, of them not judged, students graded on it, mistakes),
        most missed first.  The mistakes' students add up to those who did not pass less those not
        judged, which the page lists apart: the heading says both, so its numbers sum with its rows."""
        found = []
        for exercise in self.exercises:
            graded = sum(1 for r in self.graded() if exercise in r.codes)
            missed = sum(1 for r in self.graded() if r.codes.get(exercise, "ok") != "ok")
            unjudged = sum(1 for r in self.graded() if judged_not(r.codes.get(exercise, "ok")))
            found.append((exercise, missed, unjudged, graded, self.mistakes(exercise)))
        return sorted(found, key=lambda item: -item[1])

    def top_score(self) -> float | None:
        """The assignment's maximum score, as the gradebook gives it (the largest, should they differ)."""
        tops = [r.max_score for r in self.graded() if r.max_score is not None]
        return max(tops) if tops else None

    def reason(self, row: StudentRow) -> str:
        """Why the row, or each of its answers, was not judged: the row's own reason (not graded), else
        "exercise: reason" for each answer not judged ("train_step: SyntaxError on line 4 of ...")."""
        if row.status != "graded" or row.reason:
            return row.reason
        found = [(e, row.codes[e]) for e in self.exercises if judged_not(row.codes.get(e, "ok"))]
        return "; ".join(f"{e}: {row.reasons.get(e) or _meaning(e, code)}" for e, code in found)

    def quiz_questions(self) -> list[str]:
        return sorted({q for r in self.graded() for q in r.quiz}, key=lambda q: (len(q), q))

    def quiz_counts(self, question: str) -> list[tuple[str, int]]:
        """(answer, students) in a stable order: the letters alphabetically, then unanswered."""
        counts = Counter(r.quiz[question] or UNANSWERED for r in self.graded() if question in r.quiz)
        key = self.quiz_keys.get(question)
        if key and key not in counts:
            counts[key] = 0  # the right answer is shown even when nobody chose it
        return sorted(counts.items(), key=lambda item: (item[0] == UNANSWERED, str(item[0])))


def judged_not(code: str) -> bool:
    """True for a code that says the answer was not judged (see ``NOT_JUDGED``), also an error's name
    that the code tables do not know (``NameError`` from a test cell the grader did not score)."""
    return code in NOT_JUDGED or (not code_table.meaning("", code) and code[:1].isupper())


def _meaning(exercise: str, code: str) -> str:
    """The code's meaning in today's language (English in the CSV), or the error a test cell ended with."""
    words = code_table.meaning(exercise, code)
    if words:
        return _(words)
    return _("the test cell ended with {code}").format(code=code)


def _explained(exercise: str, code: str) -> str:
    """The meaning, and the meaning of every other code it names (see ``codes.explained``)."""
    return code_table.in_words(exercise, code) or _meaning(exercise, code)


def shown_status(status: str) -> str:
    """A row's status ("graded", "failed", "not graded") as the page and the table say it."""
    words = {
        "graded": pgettext("submission status", "graded"),
        "failed": pgettext("submission status", "failed"),
        "not graded": pgettext("submission status", "not graded"),
    }
    return words.get(status, status)


def shown_reason(reason: str) -> str:
    """A row's reason as shown: the report's own reasons in today's language, anyone else's as it is."""
    return _(reason) if reason in (NO_GRADE, NOT_GRADED_YET) else reason


def short_reason(message: str) -> str:
    """One line on why an answer was not judged, from a check's message: "SyntaxError on line 3 of
    In [7] of your notebook" for an answer cell that does not compile, else the message's first clause."""
    found = re.search(r"raised (\w+): .*\(<([^<>]*)>, line (\d+)\)", message)
    if found:
        return f"{found[1]} on line {found[3]} of {found[2]}".replace(" of answer cell ", " of cell ")
    found = re.search(r"raised (\w+)", message)
    if found:
        return f"{found[1]} raised"
    first = re.split(r"(?<=[.:;])\s", message.strip(), maxsplit=1)[0]
    return first[:160]


# -- reading ---------------------------------------------------------------------------------
def test_outcome(cell) -> str:
    """ "ok", or the diagnosis code, or the name of the error a test cell ended with."""
    checks = cell.get("metadata", {}).get("autograder", {}).get("checks")
    if checks:
        failed = [c for c in checks if not c.get("passed")]
        return failed[0].get("code", "error") if failed else "ok"
    for output in cell.get("outputs", []):
        if output.get("output_type") != "error":
            continue
        if output.get("ename") == "NotYet":
            parts = [p.strip() for p in str(output.get("evalue", "")).split(":")]
            if len(parts) >= 3 and parts[1] and " " not in parts[1]:
                return parts[1]
            return "wrong_answer"
        return str(output.get("ename") or "error")
    return "ok"


def exercise_of(test_id: str, answers: list[str]) -> str:
    name = test_id[len("test_") :] if test_id.startswith("test_") else test_id
    matches = [a for a in answers if name == a or name.startswith(a + "_")]
    return max(matches, key=len) if matches else name


def notebook_reasons(nb) -> dict[str, str]:
    """exercise -> one line on why it was not judged, for the checks that say so."""
    reasons: dict[str, str] = {}
    for cell in nb.cells:
        for check in cell.get("metadata", {}).get("autograder", {}).get("checks") or []:
            code = check.get("code", "error")
            if not check.get("passed") and judged_not(code) and code != UNANSWERED:
                reasons.setdefault(check.get("exercise", ""), short_reason(str(check.get("message", ""))))
    return reasons


def notebook_codes(nb) -> dict[str, str]:
    answers = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
               if c.metadata.get("nbgrader", {}).get("solution") and "grade_id" in c.metadata["nbgrader"]]  # fmt: skip
    codes: dict[str, str] = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
            continue
        exercise = exercise_of(meta.get("grade_id", ""), answers)
        outcome = test_outcome(cell)
        if codes.get(exercise, "ok") == "ok":
            codes[exercise] = outcome
    return codes


def notebook_quiz(nb) -> dict[str, str | None]:
    found = {}
    for cell in nb.cells:
        quiz = cell.metadata.get("autograder", {}).get("quiz")
        if quiz and quiz.get("question"):
            found[quiz["question"]] = quiz.get("answer")
    return found


def course_quiz_keys(assignment: str) -> dict[str, str]:
    """The right answer of each quick-check question, from the course's own key (gradebox/quizzes/,
    which stores each answer's hash: the choice whose hash it is)."""
    from gradebox.quick_checks import _answer_hash, load_quiz

    from ..i18n import edition_of

    assignment = edition_of(assignment)[0]  # an edition asks the English lesson's questions
    try:
        quiz = load_quiz(assignment)
    except (OSError, ValueError):
        return {}
    return {
        question: choice
        for question, item in quiz.items()
        for choice in item.get("choices", [])
        if _answer_hash(assignment, question, choice) == item.get("answer_sha256")
    }


def quiz_keys(nb) -> dict[str, str | None]:
    """The right answer of each question, from graded notebooks that got it right."""
    return {
        quiz["question"]: quiz.get("answer")
        for cell in nb.cells
        if (quiz := cell.metadata.get("autograder", {}).get("quiz")) and quiz.get("right")
    }


def build_report(course: str, assignment: str) -> ClassReport:
    from nbgrader.api import Gradebook, MissingEntry

    view = CourseAssignment(course, assignment)
    coursedir = view.coursedir
    ledger = read_ledger(view.folder, assignment)
    students = sorted(set(view.submissions()) | set(ledger))
    if not students:
        raise GradeError(f"No submissions of {assignment} yet, so there is nothing to report.")
    rows, exercises, keys = [], [], {}
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        for student in students:
            row = StudentRow(student, "not graded")
            if view.is_complete(student):
                try:
                    submission = gb.find_submission(assignment, student)
                    row.status, row.score, row.max_score = "graded", submission.score, submission.max_score
                except MissingEntry:
                    row.reason = NO_GRADE
                for nb in view.graded_notebooks(student):
                    row.codes.update(notebook_codes(nb))
                    row.reasons.update(notebook_reasons(nb))
                    row.quiz.update(notebook_quiz(nb))
                    keys.update(quiz_keys(nb))
                    row.notes += nb.metadata.get("autograder", {}).get("notes", [])
                    row.review += nb.metadata.get("autograder", {}).get("review", [])
                exercises += [e for e in row.codes if e not in exercises]
            if row.status != "graded":
                entry = ledger.get(student, {})
                if entry.get("status") == "failed":
                    row.status, row.reason = "failed", entry.get("reason", "")
                elif not row.reason:
                    row.reason = NOT_GRADED_YET
            rows.append(row)
    return ClassReport(assignment, exercises, rows, {**keys, **course_quiz_keys(assignment)})


# -- writing ---------------------------------------------------------------------------------
def class_table(report: ClassReport, students: list[str] | None = None) -> list[str]:
    """A plain-text table of students, scores, codes and notes (what ``grade`` ends with): anyone
    with grading notes or checks to review is flagged "needs review"; a code not judged carries its
    reason ("error (SyntaxError on line 3 of cell 12 of your notebook)").  Every cell is ``terminal_safe``: ids, codes
    and notes quote the students' text, and the table is printed on the instructor's terminal."""
    rows = [r for r in report.rows if students is None or r.student in students]
    header = [pgettext("report column", "student"), pgettext("report column", "score"), *report.exercises,
              pgettext("report column", "notes")]  # fmt: skip
    table = [[terminal_safe(cell) for cell in header]]
    for r in rows:
        score = f"{r.score:g}/{r.max_score:g}" if r.score is not None and r.max_score is not None else None
        codes = [r.codes.get(e, "") + (f" ({r.reasons[e]})" if e in r.reasons else "") for e in report.exercises]
        notes = [*r.notes, *r.review] if r.status == "graded" else [shown_reason(r.reason)]
        note = " | ".join(notes) if any(notes) else ""
        if note and r.status == "graded":  # grading notes or checks to review: someone should look
            note = _("needs review: {notes}").format(notes=note)
        row = [r.student, score or shown_status(r.status), *codes, note[:120] + ("…" if len(note) > 120 else "")]
        table.append([terminal_safe(cell) for cell in row])
    widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1] for row in table]


def _png(fig) -> str:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode()


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height))


def score_plot(report: ClassReport) -> str:
    from matplotlib.ticker import MaxNLocator

    fig = _figure(6, 3)
    ax = fig.add_subplot()
    scores = [r.score for r in report.graded() if r.score is not None]
    top = max([r.max_score or 0 for r in report.graded()] + [1])
    ax.hist(scores, bins=min(20, int(top) + 1), range=(0, top), color="#4c72b0", edgecolor="white")
    ax.set_xlabel(pgettext("report figure", "score"))
    ax.set_ylabel(pgettext("report figure", "students"))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # whole students
    ax.set_title(_("Scores ({graded} graded, out of {top})").format(graded=len(scores), top=f"{top:g}"))
    return _png(fig)


def pass_rate_plot(report: ClassReport) -> str:
    fig = _figure(6, 0.45 * len(report.exercises) + 1)
    ax = fig.add_subplot()
    rates = [100 * (report.pass_rate(e) or 0) for e in report.exercises]
    ax.barh(report.exercises[::-1], rates[::-1], color="#55a868")
    ax.set_xlim(0, 100)
    ax.set_xlabel(_("% of graded students who passed every test"))
    ax.set_title(_("Pass rate per exercise"))
    return _png(fig)


def _code_markup(text: str):
    """Markdown's `code` spans of the meanings as <code>, everything else escaped."""
    from markupsafe import Markup, escape

    return Markup(re.sub(r"`([^`]+)`", lambda m: f"<code>{m[1]}</code>", str(escape(text))))


def write_csv(report: ClassReport, path: str) -> None:
    """One row per student, always in English: the columns, codes and reasons are read by programs."""
    with speaking(ENGLISH), open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        questions = report.quiz_questions()
        writer.writerow(["student", "status", "score", "max_score", *report.exercises, *questions, "notes", "reason",
                         "needs_review"])  # fmt: skip
        for r in report.rows:
            row = [
                r.student, r.status, "" if r.score is None else r.score, "" if r.max_score is None else r.max_score,
                *(r.codes.get(e, "") for e in report.exercises),
                *((r.quiz.get(q) or UNANSWERED) if q in r.quiz else "" for q in questions),
                " | ".join(r.notes), report.reason(r), " | ".join(r.review),
            ]  # fmt: skip
            writer.writerow([spreadsheet_safe(value) for value in row])


def write_html(report: ClassReport, path: str) -> None:
    from jinja2 import Environment, PackageLoader

    # Every value is escaped: student ids, quiz answers, notes and error names are the students' text.
    # (select_autoescape() would not: it goes by the file name, and report.html.j2 does not end in .html.)
    environment = Environment(loader=PackageLoader("autograder.grading"), autoescape=True)
    environment.filters["code"] = _code_markup
    # The page's sentences, in today's language: the catalogue's text escaped (but for quotes, which
    # are text here: English stays byte for byte as it was), its fields filled by Markup.format,
    # which escapes every value but the links made below.
    environment.globals.update(
        _=lambda message: _sentence(_(message)),
        ngettext=lambda singular, plural, n: _sentence(ngettext(singular, plural, n)),
        pgettext=lambda context, message: _sentence(pgettext(context, message)),
        link=_link,
        shown_status=shown_status,
        shown_reason=shown_reason,
    )
    graded = report.graded()
    scores = [r.score for r in graded if r.score is not None]
    page = environment.get_template("report.html.j2").render(
        report=report,
        graded=graded,
        failed=[r for r in report.rows if r.status != "graded"],
        review=[r for r in graded if r.review],
        mean=f"{sum(scores) / len(scores):.2f}" if scores else "–",
        top=report.top_score(),
        lesson=_lesson_title(report.assignment),
        teach_next=report.teach_next(),
        not_judged=report.not_judged(),
        questions=report.quiz_questions(),
        score_png=score_plot(report),
        pass_rate_png=pass_rate_plot(report),
        policy=PAGE_POLICY,
        judged_not=judged_not,
        html_lang=language().replace("_", "-"),  # pt_BR is pt-BR in HTML (BCP 47)
        score_alt=_("score distribution"),  # attributes: plain text, escaped whole by the template
        pass_rate_alt=_("pass rate per exercise"),
    )
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)


def _sentence(text: str):
    """A sentence of the catalogue as markup for text content (``&``, ``<`` and ``>`` escaped)."""
    import html

    from markupsafe import Markup

    return Markup(html.escape(text, quote=False))


def _link(anchor: str, text):
    """A link to a section of the page (``anchor`` is the template's own), ``text`` escaped."""
    from markupsafe import Markup

    return Markup('<a href="{}">{}</a>').format(anchor, text)


def _lesson_title(assignment: str) -> str:
    """ "Lesson 3" for lesson3_zeroing_grad; the assignment id for a name without a number."""
    found = re.match(r"lesson(\d+)", assignment)
    return _("Lesson {number}").format(number=found[1]) if found else assignment


def make_report(course: str, assignment: str, output: str | None = None, lang: str | None = None) -> tuple[str, str]:
    """The page in ``lang`` (the caller's language if ``None``) and the CSV in English: their paths."""
    report = build_report(course, assignment)
    folder = output or os.path.join(os.path.abspath(course), "reports")
    os.makedirs(folder, exist_ok=True)
    html_path = os.path.join(folder, f"{assignment}.html")
    csv_path = os.path.join(folder, f"{assignment}.csv")
    with speaking(language() if lang is None else lang):
        write_html(report, html_path)
    write_csv(report, csv_path)
    return html_path, csv_path
