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
from tests.course_copy import NEVER_CLEARS, answered, nbgrader, read, solutions, write

LESSON = "lesson3_zeroing_grad"
SYNTAX_ERROR = (
    "def train_step(model, optimizer, loss_fn, x, y):\n    optimizer.zero_grad()\n\n    loss = loss_fn(model(x), y\n"
)
OTHER = "lesson1_requires_grad"


def autograder(course: str, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=course, capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip


@pytest.fixture(scope="module")
def small_class(tmp_path_factory, released):
    course = released(str(tmp_path_factory.mktemp("small-class")), LESSON)
    source = read(os.path.join(course, "notebooks", LESSON, f"{LESSON}.ipynb"))
    release = read(os.path.join(course, "release", LESSON, f"{LESSON}.ipynb"))
    good = solutions(source)
    folder = os.path.join(course, "submitted", "{}", LESSON)
    write(os.path.join(folder.format("alice"), f"{LESSON}.ipynb"), answered(release, good))
    write(
        os.path.join(folder.format("bob"), f"{LESSON}.ipynb"), answered(release, {**good, "train_step": NEVER_CLEARS})
    )
    write(os.path.join(folder.format("erin"), f"{LESSON}.ipynb"), release)
    # carl's train_step does not compile; his notebook shows that cell as In [7] (the grader's count differs)
    carl = answered(release, {**good, "train_step": SYNTAX_ERROR})
    for cell in carl["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "train_step":
            cell["execution_count"] = 7
    write(os.path.join(folder.format("carl"), f"{LESSON}.ipynb"), carl)
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
    assert "5 graded, 0 already graded (skipped), 1 failed" in run.stdout
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
    assert list(rows) == ["alice", "bob", "carl", "erin", "frank", "gina"]  # by id
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
    missed = re.findall(r"<h3><code>(\w+)</code>: (\d+) of 5 did not pass", section)
    assert ("train_step", "3") in missed and [int(n) for _, n in missed] == sorted((int(n) for _, n in missed),
                                                                                  reverse=True), missed  # fmt: skip


@requires_bwrap
def test_no_library_warnings(small_class):
    for run in (small_class["grade"], small_class["report"]):
        assert not re.search(r"Warning|sqlalchemy", run.stdout + run.stderr, re.I), run.stderr


@pytest.fixture(scope="module")
def empty_course(tmp_path_factory, released):
    return released(str(tmp_path_factory.mktemp("empty-class")), LESSON)


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
    from autograder.host import client
    from autograder.judge import pool

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


def test_several_checked_first(tmp_path, released):
    """Given several assignments, grade checks them all, and the students named, before grading any."""
    course = released(str(tmp_path / "course"), LESSON, OTHER)
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


@requires_bwrap
def test_report_and_feedback_add_up_for_a_syntax_error_a_blank_and_a_mistake(small_class):
    """alice correct, bob never_clears, carl a syntax error, erin blank: the heading's count is the
    misconception's row plus the answers not judged, the mean has its maximum, the syntax error is
    named by the cell as carl's notebook shows it, and every reason is filled."""
    course = small_class["course"]
    html = open(os.path.join(course, "reports", f"{LESSON}.html"), encoding="utf-8").read()
    heading = re.search(r"<h3><code>train_step</code>:(.*?)</h3>", html)[1]
    assert heading.startswith(" 3 of 5 did not pass, of which 2 ") and "not judged" in heading
    assert re.search(r"mean score \d+\.\d\d of \d+\.", html)
    assert "<code>clears_once</code> means:" in html  # never_clears's meaning names it
    where = "SyntaxError on line 4 of In [7] of your notebook"
    with open(os.path.join(course, "reports", f"{LESSON}.csv"), newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert rows["carl"]["train_step"] == "error" and rows["carl"]["reason"] == f"train_step: {where}"
    assert rows["erin"]["reason"].startswith("train_step: the answer cell was left as it was handed out")
    assert all(rows[s]["reason"] for s in ("carl", "erin", "frank", "gina"))
    nbgrader(course, "generate_feedback", LESSON, "--student", "[bc]*")
    page = open(os.path.join(course, "feedback", "carl", LESSON, f"{LESSON}.html"), encoding="utf-8").read()
    assert f"{where}: fix that cell" in page and "In [7]" in page
    bob = open(os.path.join(course, "feedback", "bob", LESSON, f"{LESSON}.html"), encoding="utf-8").read()
    assert "What the codes mean" in bob and "never_clears means:" in bob
    assert "Clear them" not in bob


@requires_bwrap
def test_students_the_grader_creates_are_named_with_dashes_not_none(small_class):
    """nbgrader creates each student with no name; the formgrader would write "None, None".  (frank's
    submission holds no notebook of the assignment, so no grading step ran for him: see the report.)"""
    from nbgrader.api import Gradebook

    with Gradebook("sqlite:///" + os.path.join(small_class["course"], "gradebook.db"), "autograd-course") as gb:
        names = {s.id: (s.first_name, s.last_name) for s in gb.students}
    assert {s for s, name in names.items() if name == ("—", "—")} == {"alice", "bob", "carl", "erin", "gina"}


@requires_bwrap
def test_a_notebook_replaced_without_a_timestamp_is_graded_again_and_its_old_feedback_named(small_class, tmp_path):
    """A second LMS download (zip_collect --force) or a copy by hand replaces a notebook and writes no
    timestamp.txt: grade takes the changed submission again, and only it, and says its feedback is old."""
    course = shutil.copytree(small_class["course"], str(tmp_path / "course"), symlinks=True)
    nbgrader(course, "generate_feedback", LESSON, "--student", "bob")
    source = read(os.path.join(course, "notebooks", LESSON, f"{LESSON}.ipynb"))
    release = read(os.path.join(course, "release", LESSON, f"{LESSON}.ipynb"))
    write(os.path.join(course, "submitted", "bob", LESSON, f"{LESSON}.ipynb"), answered(release, solutions(source)))
    again = autograder(course, "grade", LESSON)
    assert "1 graded, 4 already graded (skipped), 1 failed" in again.stdout, again.stdout + again.stderr  # frank's
    assert (
        f"1 graded again with feedback from an earlier grading (bob): `nbgrader generate_feedback {LESSON} --force`"
        in again.stdout
    )
    from nbgrader.api import Gradebook

    with Gradebook("sqlite:///" + os.path.join(course, "gradebook.db"), "autograd-course") as gb:
        assert gb.find_submission(LESSON, "bob").score == gb.find_assignment(LESSON).max_score
    unchanged = autograder(course, "grade", LESSON)
    assert "0 graded, 5 already graded (skipped), 1 failed" in unchanged.stdout, unchanged.stdout
