"""``python -m autograder report``: what a class got right and wrong, on one page.

It reads the gradebook (scores) and the graded notebooks (each test cell's outcome), and
writes one self-contained HTML page (plots embedded as PNG) and a CSV with a row per student:

- the score distribution and the pass rate of each exercise;
- per exercise, how many students made each mistake (the diagnosis codes the checks print),
  which shows the misconceptions the class holds;
- a table of students with their codes and grading notes;
- the submissions that did not get graded, and why.

A test cell's outcome is read from its error: the course's checks raise
``NotYet("<exercise>: <code>: <message>")``, a quiz check ``NotYet("<question>: ...")``; a cell
that passed has no error.  Any other error (``NameError`` when the answer is missing,
``KernelStopped`` when a limit stopped the notebook, ...) is reported by its name.
"""

from __future__ import annotations

import base64
import csv
import io
import os
from collections import Counter
from dataclasses import dataclass, field

from .course import Course, GradeError
from .ledger import read_ledger


@dataclass
class StudentRow:
    student: str
    status: str  # "graded", "failed" or "not graded"
    score: float | None = None
    max_score: float | None = None
    codes: dict[str, str] = field(default_factory=dict)  # exercise -> "ok" or the first mistake
    notes: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass
class ClassReport:
    assignment: str
    exercises: list[str]
    rows: list[StudentRow]

    def graded(self) -> list[StudentRow]:
        return [r for r in self.rows if r.status == "graded"]

    def pass_rate(self, exercise: str) -> float | None:
        graded = [r for r in self.graded() if exercise in r.codes]
        return sum(r.codes[exercise] == "ok" for r in graded) / len(graded) if graded else None

    def code_counts(self, exercise: str) -> Counter:
        return Counter(r.codes[exercise] for r in self.graded() if exercise in r.codes)


# -- reading ---------------------------------------------------------------------------------
def test_outcome(cell) -> str:
    """ "ok", or the diagnosis code, or the name of the error a test cell ended with."""
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


def build_report(course: str, assignment: str) -> ClassReport:
    from nbgrader.api import Gradebook, MissingEntry

    view = Course(course, assignment)
    coursedir = view.coursedir
    ledger = read_ledger(view.folder, assignment)
    students = sorted(set(view.submissions()) | set(ledger))
    if not students:
        raise GradeError(f"No submissions of {assignment} yet, so there is nothing to report.")
    rows, exercises = [], []
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        for student in students:
            row = StudentRow(student, "not graded")
            if view.is_complete(student):
                try:
                    submission = gb.find_submission(assignment, student)
                    row.status, row.score, row.max_score = "graded", submission.score, submission.max_score
                except MissingEntry:
                    row.reason = "graded notebook found, but the gradebook has no grade"
                for nb in view.graded_notebooks(student):
                    row.codes.update(notebook_codes(nb))
                    row.notes += nb.metadata.get("autograder", {}).get("notes", [])
                exercises += [e for e in row.codes if e not in exercises]
            if row.status != "graded":
                entry = ledger.get(student, {})
                if entry.get("status") == "failed":
                    row.status, row.reason = "failed", entry.get("reason", "")
                elif not row.reason:
                    row.reason = "not graded yet (run python -m autograder grade)"
            rows.append(row)
    return ClassReport(assignment, exercises, rows)


# -- writing ---------------------------------------------------------------------------------
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
    fig = _figure(6, 3)
    ax = fig.add_subplot()
    scores = [r.score for r in report.graded() if r.score is not None]
    top = max([r.max_score or 0 for r in report.graded()] + [1])
    ax.hist(scores, bins=min(20, int(top) + 1), range=(0, top), color="#4c72b0", edgecolor="white")
    ax.set_xlabel("score")
    ax.set_ylabel("students")
    ax.set_title(f"Scores ({len(scores)} graded, out of {top:g})")
    return _png(fig)


def pass_rate_plot(report: ClassReport) -> str:
    fig = _figure(6, 0.45 * len(report.exercises) + 1)
    ax = fig.add_subplot()
    rates = [100 * (report.pass_rate(e) or 0) for e in report.exercises]
    ax.barh(report.exercises[::-1], rates[::-1], color="#55a868")
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of graded students who passed every test")
    ax.set_title("Pass rate per exercise")
    return _png(fig)


def codes_plot(report: ClassReport, exercise: str) -> str:
    counts = report.code_counts(exercise).most_common()
    fig = _figure(6, 0.4 * len(counts) + 1)
    ax = fig.add_subplot()
    labels = [c for c, _ in counts][::-1]
    ax.barh(labels, [n for _, n in counts][::-1],
            color=["#55a868" if c == "ok" else "#c44e52" for c in labels])  # fmt: skip
    ax.set_xlabel("students")
    ax.set_title(f"{exercise}: outcome of each student")
    return _png(fig)


def write_csv(report: ClassReport, path: str) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student", "status", "score", "max_score", *report.exercises, "notes", "reason"])
        for r in report.rows:
            writer.writerow([
                r.student, r.status, "" if r.score is None else r.score, "" if r.max_score is None else r.max_score,
                *(r.codes.get(e, "") for e in report.exercises), " | ".join(r.notes), r.reason,
            ])  # fmt: skip


def write_html(report: ClassReport, path: str) -> None:
    from jinja2 import Environment, PackageLoader, select_autoescape

    environment = Environment(loader=PackageLoader("autograder.grading"), autoescape=select_autoescape())
    graded = report.graded()
    scores = [r.score for r in graded if r.score is not None]
    page = environment.get_template("report.html.j2").render(
        report=report,
        graded=graded,
        failed=[r for r in report.rows if r.status != "graded"],
        mean=f"{sum(scores) / len(scores):.2f}" if scores else "–",
        score_png=score_plot(report),
        pass_rate_png=pass_rate_plot(report),
        code_pngs={e: codes_plot(report, e) for e in report.exercises},
    )
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)


def make_report(course: str, assignment: str, output: str | None = None) -> tuple[str, str]:
    report = build_report(course, assignment)
    folder = output or os.path.join(os.path.abspath(course), "reports")
    os.makedirs(folder, exist_ok=True)
    html_path = os.path.join(folder, f"{assignment}.html")
    csv_path = os.path.join(folder, f"{assignment}.csv")
    write_html(report, html_path)
    write_csv(report, csv_path)
    return html_path, csv_path
