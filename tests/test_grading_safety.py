"""Course-level safety, end to end: a student id or an output that tries to run in the instructor's
spreadsheet or browser, two grading runs at once, and a run killed half-way."""

import csv
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time

import nbformat
import pytest
from nbgrader.api import Gradebook

from tests.conftest import requires_bwrap
from tests.course_copy import answered, make_course, nbgrader, read, solutions, write

pytestmark = requires_bwrap
LESSON = "lesson3_zeroing_grad"
EVIL_ID = '=HYPERLINK("evil.example","open me")'  # no slash: it is a folder name too
SCRIPT = """
from IPython.display import HTML, Markdown, display
display(HTML('<b>bold</b><script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'))
display(Markdown('<img src=x onerror="window.pwned = 3">'))
"""


def autograder(course, *args, timeout=900, wait=True):
    command = [sys.executable, "-m", "autograder", *args]
    if not wait:
        return subprocess.Popen(command, cwd=course, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return subprocess.run(command, cwd=course, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    course = make_course(str(tmp_path_factory.mktemp("safety")))
    nbgrader(course, "generate_assignment", LESSON)
    source = read(os.path.join(course, "notebooks", LESSON, f"{LESSON}.ipynb"))
    release = read(os.path.join(course, "release", LESSON, f"{LESSON}.ipynb"))
    good = solutions(source)
    scripted = answered(release, {**good, "train_accumulated": good["train_accumulated"] + "\n" + SCRIPT})
    md = nbformat.v4.new_markdown_cell('<script>window.pwned = 4</script> an added cell <img src=x onerror="x()">')
    scripted["cells"].insert(3, md)
    for student, nb in ((EVIL_ID, scripted), ("ada", answered(release, good))):
        write(os.path.join(course, "submitted", student, LESSON, f"{LESSON}.ipynb"), nb)
    run = autograder(course, "grade", LESSON)
    assert run.returncode == 0, run.stdout + run.stderr
    return {"course": course, "release": release, "good": good}


def test_student_html_and_markdown_are_sanitized_in_feedback_and_in_the_formgraders_view(course):
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    folder = course["course"]
    nbgrader(folder, "generate_feedback", LESSON)
    [feedback] = glob.glob(os.path.join(folder, "feedback", EVIL_ID, LESSON, "*.html"))
    graded = nbformat.read(os.path.join(folder, "autograded", EVIL_ID, LESSON, f"{LESSON}.ipynb"), as_version=4)
    # The formgrader renders a graded notebook with an HTMLExporter built on the course's config.
    config = Config()
    config.HTMLExporter.sanitize_html = True
    assert "c.HTMLExporter.sanitize_html = True" in open(os.path.join(folder, "nbgrader_config.py")).read()
    page, _ = HTMLExporter(config=config).from_notebook_node(graded)
    for html in (open(feedback, encoding="utf-8").read(), page):
        assert "<b>bold</b>" in html  # harmless markup stays
        assert "<script>window.pwned" not in html  # (the student's code may quote it, escaped)
        assert not re.search(r"<(img|svg)[^>]*\bon\w+=", html), "an event handler in a real tag"


def test_a_student_id_that_is_a_formula_stays_text_in_the_report_and_the_export(course):
    folder = course["course"]
    assert autograder(folder, "report", LESSON).returncode == 0
    with open(os.path.join(folder, "reports", f"{LESSON}.csv"), newline="") as f:
        students = [row["student"] for row in csv.DictReader(f)]
    assert "'" + EVIL_ID in students and EVIL_ID not in students
    nbgrader(folder, "export", "--to", "grades.csv")
    with open(os.path.join(folder, "grades.csv"), newline="") as f:
        exported = [row["student_id"] for row in csv.DictReader(f)]
    assert "'" + EVIL_ID in exported and EVIL_ID not in exported


def test_graded_copies_are_not_readable_by_everyone(course):
    graded = os.path.join(course["course"], "autograded", "ada", LESSON, f"{LESSON}.ipynb")
    assert os.stat(graded).st_mode & 0o777 == 0o440


def test_a_second_grading_run_on_the_same_course_is_refused_while_the_first_works(course):
    folder = course["course"]
    release, good = course["release"], course["good"]
    slow = answered(release, {**good, "train_accumulated": good["train_accumulated"] + "\nimport time\ntime.sleep(8)"})
    write(os.path.join(folder, "submitted", "slowpoke", LESSON, f"{LESSON}.ipynb"), slow)
    first = autograder(folder, "grade", LESSON, "--student", "slowpoke", wait=False)
    try:
        holder = os.path.join(folder, ".autograder", "grade.lock.pid")
        for _ in range(300):
            if os.path.isfile(holder) and open(holder).read().strip() == str(first.pid):
                break
            time.sleep(0.1)
        second = autograder(folder, "grade", LESSON, "--student", "ada", "--force")
        assert second.returncode == 2
        assert f"is grading this course (process {first.pid})" in second.stderr
    finally:
        out, err = first.communicate(timeout=600)
    assert first.returncode == 0, out + err


def test_a_run_killed_half_way_is_graded_again_by_rerunning_nbgrader_autograde(tmp_path):
    course = make_course(str(tmp_path / "course"))
    nbgrader(course, "generate_assignment", LESSON)
    source = read(os.path.join(course, "notebooks", LESSON, f"{LESSON}.ipynb"))
    release = read(os.path.join(course, "release", LESSON, f"{LESSON}.ipynb"))
    good = solutions(source)
    slow = answered(release, {**good, "train_step": good["train_step"] + "\nimport time\ntime.sleep(30)"})
    folder = os.path.join(course, "submitted", "ada", LESSON)
    write(os.path.join(folder, f"{LESSON}.ipynb"), slow)
    with open(os.path.join(folder, "timestamp.txt"), "w") as f:
        f.write("2026-11-30 12:00:00.000000 UTC")  # as nbgrader collect leaves it
    graded = os.path.join(course, "autograded", "ada", LESSON)
    run = subprocess.Popen(["nbgrader", "autograde", LESSON], cwd=course, start_new_session=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        for _ in range(600):  # wait until the notebook is being graded, then pull the plug
            stamp = os.path.join(graded, "timestamp.txt")
            if os.path.isfile(stamp) and open(stamp).read().startswith("1970"):
                break
            time.sleep(0.1)
        else:
            raise AssertionError("grading never started")
        time.sleep(2)
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    # the rerun of the README's command grades ada again, instead of skipping her as done
    with open(os.path.join(folder, f"{LESSON}.ipynb"), "w") as f:
        json.dump(answered(release, good), f)  # the same answers, without the pause
    done = nbgrader(course, "autograde", LESSON)
    assert "Skipping existing assignment" not in done.stdout + done.stderr
    with Gradebook(f"sqlite:///{os.path.join(course, 'gradebook.db')}") as gb:
        submission = gb.find_submission(LESSON, "ada")
        assert submission.score == submission.max_score > 0
