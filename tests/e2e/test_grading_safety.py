"""Course-level safety, end to end: a student id, an output, a Markdown cell or a quiz answer that tries
to run in the instructor's spreadsheet or browser, two grading runs at once, and a run killed half-way."""

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
from tests.course_copy import answered, nbgrader, read, solutions, write
from tests.unit.autograder.grading.test_sanitize import (
    HOSTILE_MARKDOWN,
    SAFE_LINKS,
    Targets,
    dangerous,
    formgrader_exporter,
    hostile_html,
    hostile_markdown,
    safe_links_html,
    safe_links_markdown,
)

pytestmark = requires_bwrap
LESSON = "lesson3_zeroing_grad"
EVIL_ID = '=HYPERLINK("evil.example","open me")'  # no slash: it is a folder name too
LINKS_HTML = "".join(hostile_html().values()) + safe_links_html()
LINKS_MARKDOWN = "\n\n".join([*hostile_markdown().values(), safe_links_markdown()])
SCRIPT = f"""
from IPython.display import HTML, Markdown, display
display(HTML('<b>bold</b><script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'))
display(Markdown('<img src=x onerror="window.pwned = 3">'))
display(HTML({LINKS_HTML!r}))
display(Markdown({LINKS_MARKDOWN!r}))
"""
QUIZ_LINK = "<a href=\"javascript:void(top.pwned='quiz')\">c</a>"  # a quick-check answer the report shows


def autograder(course, *args, timeout=900, wait=True):
    command = [sys.executable, "-m", "autograder", *args]
    if not wait:
        return subprocess.Popen(command, cwd=course, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return subprocess.run(command, cwd=course, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def course(tmp_path_factory, released):
    course = released(str(tmp_path_factory.mktemp("safety")), LESSON)
    source = read(os.path.join(course, "notebooks", LESSON, f"{LESSON}.ipynb"))
    release = read(os.path.join(course, "release", LESSON, f"{LESSON}.ipynb"))
    good = solutions(source)
    scripting = good["train_accumulated"] + "\n" + SCRIPT
    scripted = answered(release, {**good, "train_accumulated": scripting, "quiz_q1": f"q1 = {QUIZ_LINK!r}"})
    md = nbformat.v4.new_markdown_cell(
        '<script>window.pwned = 4</script> an added cell <img src=x onerror="x()">\n\n' + LINKS_MARKDOWN
    )
    scripted["cells"].insert(3, md)
    for student, nb in ((EVIL_ID, scripted), ("ada", answered(release, good))):
        write(os.path.join(course, "submitted", student, LESSON, f"{LESSON}.ipynb"), nb)
    run = autograder(course, "grade", LESSON)
    assert run.returncode == 0, run.stdout + run.stderr
    return {"course": course, "release": release, "good": good}


def feedback_and_formgrader_view(course) -> tuple[str, str]:
    """The scripted student's feedback page, and the page nbgrader's formgrader serves for the graded
    notebook (its exporter, with nbgrader's formgrade template and the course's config)."""
    folder = course["course"]
    nbgrader(folder, "generate_feedback", LESSON)
    [feedback] = glob.glob(os.path.join(folder, "feedback", EVIL_ID, LESSON, "*.html"))
    graded = nbformat.read(os.path.join(folder, "autograded", EVIL_ID, LESSON, f"{LESSON}.ipynb"), as_version=4)
    view, _ = formgrader_exporter().from_notebook_node(graded, resources={"index": 0, "total": 1})
    return open(feedback, encoding="utf-8").read(), view


def test_student_markup_sanitized(course):
    for html in feedback_and_formgrader_view(course):
        assert "<b>bold</b>" in html  # harmless markup stays
        assert "<script>window.pwned" not in html  # (the student's code may quote it, escaped)
        assert not re.search(r"<(img|svg)[^>]*\bon\w+=", html), "an event handler in a real tag"


def test_links_keep_safe_targets(course):
    for html in feedback_and_formgrader_view(course):
        body = html[html.index('id="notebook-container"') :]  # the notebook, not the formgrader's own links
        assert dangerous(body) == [], dangerous(body)
        text = Targets(body).text
        for name in [*HOSTILE_MARKDOWN, *SAFE_LINKS]:  # in the added cell and in the Markdown output
            assert text.count(name) >= 2, name
        hrefs = [value for tag, attribute, value in Targets(body).targets if attribute == "href"]
        for target in SAFE_LINKS.values():
            assert hrefs.count(target) >= 3, target  # the added cell, the HTML and the Markdown output


def test_feedback_policy_runs_nothing(course):
    feedback, _ = feedback_and_formgrader_view(course)
    head = feedback[: feedback.index("</head>")]
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', head)
    assert policy and "default-src &#x27;none&#x27;" in policy[1] and "script-src" not in policy[1]
    assert head.index("Content-Security-Policy") < head.index("<style")  # before anything it governs


def test_quiz_link_stays_text(course):
    folder = course["course"]
    assert autograder(folder, "report", LESSON).returncode == 0
    page = open(os.path.join(folder, "reports", f"{LESSON}.html"), encoding="utf-8").read()
    assert QUIZ_LINK.lower() not in page and "&lt;a href=&#34;javascript:" in page
    assert dangerous(page[page.index("<body") :]) == []
    assert '<head><meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;' in page


def test_formula_id_stays_text(course):
    folder = course["course"]
    assert autograder(folder, "report", LESSON).returncode == 0
    with open(os.path.join(folder, "reports", f"{LESSON}.csv"), newline="") as f:
        students = [row["student"] for row in csv.DictReader(f)]
    assert "'" + EVIL_ID in students and EVIL_ID not in students
    nbgrader(folder, "export", "--to", "grades.csv")
    with open(os.path.join(folder, "grades.csv"), newline="") as f:
        exported = [row["student_id"] for row in csv.DictReader(f)]
    assert "'" + EVIL_ID in exported and EVIL_ID not in exported


def test_graded_copies_not_public(course):
    graded = os.path.join(course["course"], "autograded", "ada", LESSON, f"{LESSON}.ipynb")
    assert os.stat(graded).st_mode & 0o777 == 0o440


def test_concurrent_run_refused(course):
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


def test_killed_autograde_is_regraded(tmp_path, released):
    course = released(str(tmp_path / "course"), LESSON)
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
