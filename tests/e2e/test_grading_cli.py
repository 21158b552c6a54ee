"""`python -m autograder grade` and `report`: a small class end to end, and bad arguments."""

import contextlib
import csv
import os
import re
import shutil
import subprocess
import sys
import threading

import pytest

from tests.conftest import requires_bwrap
from tests.course_copy import NEVER_CLEARS, answered, make_course, nbgrader, read, solutions, write

LESSON = "lesson3_zeroing_grad"
OTHER = "lesson1_requires_grad"


def autograder(course: str, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=course, capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip


@pytest.fixture(scope="module")
def small_class(tmp_path_factory):
    course = make_course(str(tmp_path_factory.mktemp("small-class")))
    nbgrader(course, "generate_assignment", LESSON)
    source = read(os.path.join(course, "notebooks", LESSON, f"{LESSON}.ipynb"))
    release = read(os.path.join(course, "release", LESSON, f"{LESSON}.ipynb"))
    good = solutions(source)
    folder = os.path.join(course, "submitted", "{}", LESSON)
    write(os.path.join(folder.format("alice"), f"{LESSON}.ipynb"), answered(release, good))
    write(
        os.path.join(folder.format("bob"), f"{LESSON}.ipynb"), answered(release, {**good, "train_step": NEVER_CLEARS})
    )
    write(os.path.join(folder.format("erin"), f"{LESSON}.ipynb"), release)
    # frank renamed his notebook: nbgrader cannot match it to the assignment
    write(os.path.join(folder.format("frank"), "Untitled.ipynb"), answered(release, good))
    # gina's last answer cell ends the process: the checks after it cannot be scored
    cut_short = {**good, "manual_sgd_step": good["manual_sgd_step"] + "\nimport os\nos._exit(0)\n"}
    write(os.path.join(folder.format("gina"), f"{LESSON}.ipynb"), answered(release, cut_short))
    run = autograder(course, "grade", LESSON, "--jobs", "2")
    report = autograder(course, "report", LESSON)
    return {"course": course, "grade": run, "report": report}


@requires_bwrap
def test_grade_names_what_failed(small_class):
    run = small_class["grade"]
    assert run.returncode == 1  # one submission failed
    assert "4 graded, 0 already graded (skipped), 1 failed" in run.stdout
    assert re.search(r"failed: frank: .*Untitled", run.stdout), run.stdout
    assert "ETA" in run.stderr  # the progress line


@requires_bwrap
def test_report_is_self_contained(small_class):
    course = small_class["course"]
    assert small_class["report"].returncode == 0, small_class["report"].stderr
    html = open(os.path.join(course, "reports", f"{LESSON}.html"), encoding="utf-8").read()
    assert html.count("data:image/png;base64,") == 2  # scores, pass rates
    assert not re.search(r"""(src|href)=["']https?://""", html)  # nothing fetched from elsewhere
    for text in ("never_clears", "train_step", "What to teach next", "frank", "Untitled"):
        assert text in html, text
    with open(os.path.join(course, "reports", f"{LESSON}.csv"), newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert set(rows) == {"alice", "bob", "erin", "frank", "gina"}
    assert rows["alice"]["train_step"] == "ok" and rows["alice"]["status"] == "graded"
    assert float(rows["alice"]["score"]) == float(rows["alice"]["max_score"])
    assert rows["bob"]["train_step"] == "never_clears" and rows["bob"]["train_accumulated"] == "ok"
    assert rows["erin"]["manual_sgd_step"] == "unanswered" and rows["erin"]["q1"] == "unanswered"
    assert rows["alice"]["q1"] == "c"  # the quick-check answers, though not graded
    assert rows["frank"]["status"] == "failed" and "Untitled" in rows["frank"]["reason"]


@requires_bwrap
def test_report_leads_with_teach_next(small_class):
    html = open(os.path.join(small_class["course"], "reports", f"{LESSON}.html"), encoding="utf-8").read()
    teach, scores, quiz = html.index("What to teach next"), html.index("<h2>Scores"), html.index("Quick checks")
    assert teach < scores < quiz
    section = html[teach:scores]
    # bob's mistake: its code, its meaning in words, one student, and where the lesson teaches it
    row = re.search(r"never_clears.*?</tr>", section, re.S)[0]
    assert "gradients pile up across updates" in row and "<summary>1</summary>bob" in row
    assert "Lesson 3 › 3. The bug: forgetting to clear" in row
    # erin's blank notebook: unanswered, after the misconceptions, never an error name
    assert "unanswered" in section and section.index("never_clears") < section.rindex("unanswered")
    assert "NameError" not in html and "NotImplementedError" not in html
    # the exercise most missed comes first
    missed = re.findall(r"<h3><code>(\w+)</code>: (\d+) of 4 did not pass", section)
    assert ("train_step", "2") in missed and [int(n) for _, n in missed] == sorted((int(n) for _, n in missed),
                                                                                  reverse=True), missed  # fmt: skip


@requires_bwrap
def test_no_library_warnings(small_class):
    for run in (small_class["grade"], small_class["report"]):
        assert not re.search(r"Warning|sqlalchemy", run.stdout + run.stderr, re.I), run.stderr


@pytest.fixture(scope="module")
def empty_course(tmp_path_factory):
    course = make_course(str(tmp_path_factory.mktemp("empty-class")))
    nbgrader(course, "generate_assignment", LESSON)
    return course


@pytest.mark.parametrize("command", ["grade", "report"])
def test_unknown_assignment_refused(empty_course, command):
    run = autograder(empty_course, command, "lesson9_nothing")
    assert run.returncode == 2
    assert "Unknown assignment 'lesson9_nothing'" in run.stderr and LESSON in run.stderr


@pytest.mark.parametrize("command", ["grade", "report"])
def test_no_submissions_said_plainly(empty_course, command):
    run = autograder(empty_course, command, LESSON)
    assert run.returncode == 2
    assert f"No submissions of {LESSON}" in run.stderr


@pytest.mark.parametrize("command", ["grade", "report"])
def test_no_gradebook_says_how_to_make(tmp_path, empty_course, command):
    course = str(tmp_path / "no-gradebook")
    shutil.copytree(empty_course, course)
    os.remove(os.path.join(course, "gradebook.db"))
    run = autograder(course, command, LESSON)
    assert run.returncode == 2
    assert "No gradebook" in run.stderr and "nbgrader generate_assignment" in run.stderr
    assert not os.path.exists(os.path.join(course, "gradebook.db"))  # and none was made up


def test_a_secret_others_can_read_stops_grade_before_any_notebook_runs(tmp_path, empty_course):
    course = str(tmp_path / "loose-secret")
    shutil.copytree(empty_course, course)
    secret = os.path.join(course, ".autograder", "course-secret")
    os.makedirs(os.path.dirname(secret), mode=0o700, exist_ok=True)
    with open(secret, "w") as f:
        f.write("a" * 64)
    os.chmod(secret, 0o644)
    run = autograder(course, "grade", LESSON)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "course secret" in run.stderr and "chmod 600" in run.stderr
    assert not os.path.exists(os.path.join(course, "autograded"))


@pytest.mark.parametrize("locked", [False, True], ids=["nothing to grade", "another run grading"])
def test_refused_run_boots_nothing(empty_course, locked, monkeypatch):
    """A thread still importing torch when a refused run exited could meet logging's shutdown
    half-way through making a handler: the refusal then ended with an AttributeError and exit code
    1 instead of 2 (seen once in CI).  Booting a server, or judging processes, to refuse was also
    seconds wasted."""
    import autograder.grading.grade as grade
    from autograder.grading.locks import grading_lock
    from autograder.judge import pool
    from autograder.sandbox import client

    started = []
    monkeypatch.setattr(client, "shared_server", lambda *args: started.append("server"))
    monkeypatch.setattr(pool, "shared_pool", lambda *args, **kwargs: started.append("judge"))
    monkeypatch.setenv("NBGRADER_EXECUTION", "")  # run() sets it: restored afterwards
    before = set(threading.enumerate())
    with contextlib.ExitStack() as stack:
        if locked:
            stack.enter_context(grading_lock(empty_course))
        with pytest.raises(grade.GradeError, match="is grading this course" if locked else "No submissions"):
            grade.Grader(empty_course, LESSON).run()
    for thread in set(threading.enumerate()) - before:
        thread.join(timeout=60)
    assert started == []


def test_non_course_folder_refused(tmp_path):
    run = autograder(str(tmp_path), "grade", LESSON)
    assert run.returncode == 2 and "has no nbgrader_config.py" in run.stderr


def test_bad_options_are_refused(empty_course):
    run = autograder(empty_course, "grade", LESSON, "--jobs", "-1")
    assert run.returncode == 2 and "--jobs" in run.stderr
    run = autograder(empty_course, "grade", LESSON, "--student", "nobody")
    assert run.returncode == 2 and "nobody" in run.stderr
    run = autograder(empty_course, "grade")
    assert run.returncode == 2


def test_several_checked_first(tmp_path):
    """Given several assignments, grade checks them all, and the students named, before grading any."""
    course = make_course(str(tmp_path / "course"))
    for assignment in (LESSON, OTHER):
        nbgrader(course, "generate_assignment", assignment)
    release = read(os.path.join(course, "release", LESSON, f"{LESSON}.ipynb"))
    write(os.path.join(course, "submitted", "ada", LESSON, f"{LESSON}.ipynb"), release)
    run = autograder(course, "grade", LESSON, "lesson9_nothing")
    assert run.returncode == 2 and "Unknown assignment 'lesson9_nothing'" in run.stderr
    run = autograder(course, "grade", LESSON, OTHER)
    assert run.returncode == 2 and f"No submissions of {OTHER}" in run.stderr
    write(os.path.join(course, "submitted", "bob", OTHER, f"{OTHER}.ipynb"), release)
    run = autograder(course, "grade", LESSON, OTHER, "--student", "ada")
    assert run.returncode == 2 and f"No submission of {OTHER} from: ada" in run.stderr
    assert not os.path.exists(os.path.join(course, "autograded"))


@pytest.mark.parametrize(
    ("shard", "message"),
    [("3/2", "K must be between 1 and N"), ("0/2", "K must be between 1 and N"), ("half", "write it K/N"),
     ("2/2", "SQLite file")],
)  # fmt: skip
def test_bad_or_sqlite_shards_refused(empty_course, shard, message):
    run = autograder(empty_course, "grade", LESSON, "--shard", shard)
    assert run.returncode == 2 and message in run.stderr, run.stderr


@requires_bwrap
def test_undecided_check_needs_review(small_class):
    course, run = small_class["course"], small_class["grade"]
    assert "needs review: gina: manual_sgd_step" in run.stdout, run.stdout
    html = open(os.path.join(course, "reports", f"{LESSON}.html"), encoding="utf-8").read()
    section = html[html.index('id="needs-review"') : html.index("What to teach next")]
    assert "gina" in section and "manual_sgd_step" in section
    with open(os.path.join(course, "reports", f"{LESSON}.csv"), newline="") as f:
        row = {row["student"]: row for row in csv.DictReader(f)}["gina"]
    assert "manual_sgd_step" in row["needs_review"]
    assert row["train_step"] == "ok" and row["manual_sgd_step"] == "error"
