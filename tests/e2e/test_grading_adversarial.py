"""Every hostile or broken submission gets a grade and a recorded reason, through both plain
`nbgrader autograde` and `python -m autograder grade`, and nothing else is touched."""

import csv
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.grading.intake import LIST, REFUSED
from tests.adversarial import CASES, FORGED, LESSON, Context, build_all, cases, expected_points
from tests.conftest import requires_bwrap
from tests.course_copy import answered, nbgrader, points, read, solutions, write

pytestmark = requires_bwrap

# Short limits, so that the cases that hang cost seconds, not minutes.
LIMITS = """
c.ExecutePreprocessor.timeout = 10
c.SandboxLimits.notebook_seconds = 120
"""
PATHS = ("nbgrader", "grade")


def _tree_digest(folder: str) -> dict[str, str]:
    found = {}
    for base, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(base, name)
            mode = os.lstat(path).st_mode
            if not stat.S_ISREG(mode):  # links, FIFOs, devices: opening one could block or escape
                target = os.readlink(path) if stat.S_ISLNK(mode) else ""
                found[os.path.relpath(path, folder)] = f"{stat.filemode(mode)} {target}"
                continue
            with open(path, "rb") as f:
                found[os.path.relpath(path, folder)] = hashlib.sha256(f.read()).hexdigest()
    return found


def _guarded(course: str) -> dict:
    return {part: _tree_digest(os.path.join(course, part)) for part in ("notebooks", "release", "submitted")}


@pytest.fixture(scope="module")
def classes(tmp_path_factory, released):
    """One class of hostile submissions, graded once by each path (in two copies of the course): every
    case by `grade`, the cases whose path differs by plain `nbgrader autograde` too (``Case.stock``)."""
    first = released(str(tmp_path_factory.mktemp("hostile-nbgrader")), LESSON)
    with open(os.path.join(first, "nbgrader_config.py"), "a") as f:
        f.write(LIMITS)
    source = read(os.path.join(first, "notebooks", LESSON, f"{LESSON}.ipynb"))
    release = read(os.path.join(first, "release", LESSON, f"{LESSON}.ipynb"))
    good = solutions(source)
    second = str(tmp_path_factory.mktemp("hostile-grade"))
    shutil.rmtree(second)
    shutil.copytree(first, second)
    courses, running = {}, {}
    for path, course in zip(PATHS, (first, second)):
        canary = os.path.join(str(tmp_path_factory.mktemp("canary")), "canary.txt")
        with open(canary, "w") as f:
            f.write("still here")
        build_all(release, good, Context(course, canary), path)
        write(os.path.join(course, "submitted", "alice", LESSON, f"{LESSON}.ipynb"), answered(release, good))
        courses[path] = {"course": course, "before": _guarded(course), "canary": canary, "source": source,
                         "release": release}  # fmt: skip
    # Both paths at once, each in its own copy of the course (their kernels get different uids);
    # output into files, so that neither waits on a full pipe while the other is read.
    logs = str(tmp_path_factory.mktemp("hostile-logs"))
    for path, course in zip(PATHS, (first, second)):
        if path == "nbgrader":
            command = ["nbgrader", "autograde", LESSON]
        else:
            command = [sys.executable, "-m", "autograder", "grade", LESSON, "--jobs", "2"]
        with open(os.path.join(logs, f"{path}.out"), "w") as out, open(os.path.join(logs, f"{path}.err"), "w") as err:
            running[path] = subprocess.Popen(command, cwd=course, stdout=out, stderr=err, text=True)
    for path, process in running.items():
        process.wait(timeout=1800)
        out, err = (open(os.path.join(logs, f"{path}.{end}")).read() for end in ("out", "err"))
        courses[path]["run"] = subprocess.CompletedProcess(process.args, process.returncode, out, err)
        courses[path]["after"] = _guarded(courses[path]["course"])
    return courses


def _score(course: str, student: str) -> float:
    with Gradebook(f"sqlite:///{os.path.join(course, 'gradebook.db')}") as gb:
        return gb.find_submission(LESSON, student).score


def _graded_text(course: str, student: str) -> str:
    nb = nbformat.read(os.path.join(course, "autograded", student, LESSON, f"{LESSON}.ipynb"), as_version=4)
    parts = list(nb.metadata.get("autograder", {}).get("notes", []))
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            parts += [
                output.get("text", ""),
                output.get("ename", ""),
                output.get("evalue", ""),
                str(output.get("data", {}).get("text/plain", "")),
            ]
    return "\n".join(parts)


@pytest.mark.parametrize("path", PATHS)
def test_whole_class_graded_cleanly(classes, path):
    run = classes[path]["run"]
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "Task was destroyed" not in run.stderr, run.stderr[-3000:]
    course = classes[path]["course"]
    for case in cases(path):
        assert os.path.isfile(os.path.join(course, "autograded", case.student, LESSON, f"{LESSON}.ipynb")), case.student


@pytest.mark.parametrize(
    "path, case", [(p, c) for c in CASES for p in PATHS if c in cases(p)], ids=lambda v: getattr(v, "student", v)
)
def test_each_case_graded_with_reason(classes, path, case):
    course, source, release = classes[path]["course"], classes[path]["source"], classes[path]["release"]
    assert _score(course, case.student) in expected_points(case, release, points(source))
    if case.expect_text:
        assert re.search(case.expect_text, _graded_text(course, case.student)), case.expect_text


def _undo_refusals(after: dict) -> dict:
    """The submitted tree as it was before the grader moved refused entries to .refused (each one
    intact, put back where it was) and left a placeholder for a refused notebook."""
    tree = dict(after["submitted"])
    for key in [k for k in tree if f"/{REFUSED}/" in k]:
        entry = tree.pop(key)
        if not key.endswith(f"/{LIST}"):
            tree[key.replace(f"/{REFUSED}/", "/", 1)] = entry
    return {**after, "submitted": tree}


@pytest.mark.parametrize("path", PATHS)
def test_code_touches_only_its_copy(classes, path):
    info = classes[path]
    assert _undo_refusals(info["after"]) == info["before"]
    with open(info["canary"]) as f:
        assert f.read() == "still here"
    for case in cases(path):
        _score(info["course"], case.student)  # every grade is still in the gradebook


@pytest.mark.parametrize("path", PATHS)
def test_side_code_and_secrets_safe(classes, path):
    course = classes[path]["course"]
    assert "HIJACKED" not in _graded_text(course, "files_beside")
    stolen = _graded_text(course, "read_secrets")
    assert "SQLite format" not in stolen and "BEGIN HIDDEN TESTS" not in stolen
    assert "found:" in stolen and course not in stolen


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("student", ["print_gigabyte", "huge_error_value", "comm_flood", "debug_print_50mb"])
def test_output_flood_is_cut_short(classes, path, student):
    graded = os.path.join(classes[path]["course"], "autograded", student, LESSON, f"{LESSON}.ipynb")
    assert os.path.getsize(graded) < 12 * 2**20


@pytest.mark.parametrize("path", PATHS)
def test_correct_work_keeps_full_marks(classes, path):
    source = classes[path]["source"]
    assert _score(classes[path]["course"], "alice") == sum(points(source).values())


def test_both_paths_score_the_same(classes):
    """Except where a case races two limits: each path may see either stop it first."""
    students = [c.student for c in cases("nbgrader") if "|" not in c.expect_score] + ["alice"]
    scores = {path: {s: _score(classes[path]["course"], s) for s in students} for path in PATHS}
    assert scores["nbgrader"] == scores["grade"]


def test_rerun_skips_what_is_graded(classes):
    course = classes["grade"]["course"]
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", LESSON, "--student", "alice"], cwd=course,
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert "0 graded, 1 already graded (skipped)" in run.stdout


@pytest.fixture(scope="module")
def shown(classes):
    """What each path's course shows of the class beyond the graded copies: the class report (HTML
    and CSV, ``python -m autograder report``) and the forger's feedback (``nbgrader generate_feedback``)."""
    found = {}
    for path in PATHS:
        course = classes[path]["course"]
        report = subprocess.run([sys.executable, "-m", "autograder", "report", LESSON], cwd=course,
                                capture_output=True, text=True, timeout=600)  # fmt: skip
        assert report.returncode == 0, report.stderr[-2000:]
        nbgrader(course, "generate_feedback", LESSON, "--student", "forged_grader_metadata")
        feedback = os.path.join(course, "feedback", "forged_grader_metadata", LESSON, f"{LESSON}.html")
        with open(os.path.join(course, "reports", f"{LESSON}.csv"), newline="", encoding="utf-8") as f:
            rows = {row["student"]: row for row in csv.DictReader(f)}
        found[path] = {
            "html": open(os.path.join(course, "reports", f"{LESSON}.html"), encoding="utf-8").read(),
            "csv": rows,
            "feedback": open(feedback, encoding="utf-8").read(),
        }
    return found


@pytest.mark.parametrize("path", PATHS)
def test_a_submissions_forged_grader_metadata_shows_nowhere(classes, shown, path):
    """Notes, review items, verdicts and quiz answers the student wrote as the grader's: not in the
    graded copy, the feedback, the run's output, the report or its CSV."""
    course = classes[path]["course"]
    with open(os.path.join(course, "autograded", "forged_grader_metadata", LESSON, f"{LESSON}.ipynb")) as f:
        graded = f.read()
    run = classes[path]["run"]
    csv_text = "\n".join(str(row) for row in shown[path]["csv"].values())
    for where, text in [("graded copy", graded), ("feedback", shown[path]["feedback"]), ("report", shown[path]["html"]),
                        ("csv", csv_text), ("output", run.stdout + run.stderr)]:  # fmt: skip
        assert FORGED not in text, where
    assert shown[path]["csv"]["forged_grader_metadata"]["needs_review"] == ""
    assert shown[path]["csv"]["alice"]["score"] == shown[path]["csv"]["alice"]["max_score"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("student", ["invalid_json", "notebook_is_a_link"])
def test_a_notebook_scored_0_unread_needs_review_in_the_report_csv(shown, path, student):
    row = shown[path]["csv"][student]
    assert float(row["score"]) == 0 and row["needs_review"], row
    assert re.search("not a readable notebook|not read: it was a link", row["needs_review"]), row["needs_review"]


def test_grades_output_shows_a_file_names_escape_sequence_as_text(classes):
    """The link's name is quoted in a note that grade's class table prints: shown, never obeyed."""
    run = classes["grade"]["run"]
    assert "a\\x1b[2J\\x1b[Hb.txt" in run.stdout
    for path in PATHS:
        output = classes[path]["run"].stdout + classes[path]["run"].stderr
        assert "\x1b[2J" not in output and "\x1b[H" not in output, path
