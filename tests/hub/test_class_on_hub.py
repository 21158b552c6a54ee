"""A class on JupyterHub, from release to feedback, in Chromium: the instructor releases lesson 3 from
the formgrader; two students fetch it from the Assignments tab, answer (one right, one with a
zero_grad mistake) and submit; the instructor collects, grades with `python -m autograder grade`
into the PostgreSQL gradebook and releases feedback; each student fetches feedback and sees the
diagnosis of their own code, and nothing of the other's or of the hidden tests.

Screenshots of each step: test-artifacts/browser/hub-<step>.png."""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys

import pytest
from playwright.sync_api import Page, expect

from tests.browser.lab import screenshot
from tests.course_copy import CORRECT_TRAIN_STEP, NEVER_CLEARS, read, solutions
from tests.hub.conftest import COURSE_ID, GRADER, INSTRUCTOR1, STUDENT1, STUDENT2, without_run

pytestmark = [pytest.mark.hub, pytest.mark.slow]
LESSON = "lesson3_zeroing_grad"
LOAD_MS = 180_000
ANSWERS = {STUDENT1: CORRECT_TRAIN_STEP, STUDENT2: NEVER_CLEARS}


def login(chromium, hub, user: str) -> Page:
    page = chromium.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(f"{hub.url}/hub/login", timeout=LOAD_MS)
    page.fill("#username_input", user)
    page.fill("#password_input", hub.password)
    page.click("#login_submit")
    return page


def assignment_row(page: Page, assignment: str):
    """The formgrader's row of ``assignment`` (exactly: ``lesson3_zeroing_grad_pt_br`` is another row)."""
    return page.locator("#main-table tr").filter(has=page.get_by_text(assignment, exact=True))


def formgrader(page: Page, hub):
    page.goto(f"{hub.url}/services/{COURSE_ID}/formgrader", timeout=LOAD_MS)
    row = assignment_row(page, LESSON)
    row.wait_for(timeout=LOAD_MS)
    return row


def formgrader_action(page: Page, row, column: str, success: str) -> str:
    """Click one of the formgrader's buttons for the assignment, wait for its report, close it."""
    row.locator(f"td.{column} a").click()
    dialog = page.locator(".modal-dialog", has_text=success)
    dialog.wait_for(timeout=LOAD_MS)
    text = dialog.inner_text()
    page.locator(".modal-dialog button", has_text="OK").last.click()
    expect(dialog).to_be_hidden(timeout=LOAD_MS)
    return text


def student_lab(chromium, hub, student: str) -> Page:
    page = login(chromium, hub, student)
    page.wait_for_url(re.compile(rf".*/user/{student}/lab.*"), timeout=LOAD_MS)
    page.locator("#jp-main-dock-panel").wait_for(timeout=LOAD_MS)
    return page


def assignments_tab(page: Page):
    page.locator("div.lm-MenuBar-itemLabel:text-is('Nbgrader')").click()
    page.locator("div.lm-Menu-itemLabel:text-is('Assignment List')").click()
    panel = page.locator(".jp-NbgraderAssignmentList, #assignments").first
    page.get_by_text("Released assignments").wait_for(timeout=LOAD_MS)
    return panel


def answer(page: Page, hub, student: str) -> None:
    """Open the fetched notebook, type the train_step answer and the two other answers, save."""
    from tests.browser.lab import Notebook

    home = f"/home/{student}"

    class Server:  # what tests.browser.lab.Notebook needs of a server: the files and their URL
        root = home

        @staticmethod
        def url(path: str = "") -> str:
            return f"{hub.url}/user/{student}/lab/tree/{path}"

    notebook = Notebook(page, Server, f"{LESSON}/{LESSON}.ipynb").open()
    good = solutions(read(os.path.join(hub.course, "notebooks", LESSON, f"{LESSON}.ipynb")))
    answers = {"train_step": ANSWERS[student], "train_accumulated": good["train_accumulated"],
               "manual_sgd_step": good["manual_sgd_step"]}  # fmt: skip
    for exercise, code in answers.items():
        notebook.set_source(notebook.index(grade_id_is=exercise), code)
    page.keyboard.press("Control+s")
    page.wait_for_function(
        """() => !document.querySelector('.jp-NotebookPanel-toolbar .jp-mod-dirty, .lm-TabBar-tab.jp-mod-dirty')""",
        timeout=LOAD_MS,
    )


def test_release_to_feedback(hub, chromium):
    # 1. The instructor generates and releases lesson 3 from the course's formgrader.
    instructor = login(chromium, hub, INSTRUCTOR1)
    row = formgrader(instructor, hub)
    assert "Successfully created" in formgrader_action(instructor, row, "assign", "Success")
    assert "Successfully released" in formgrader_action(instructor, formgrader(instructor, hub), "release", "released")
    screenshot(instructor, "hub-1-instructor-released")

    # 2-3. Each student fetches it from the Assignments tab, answers, saves and submits.
    students = {}
    for number, student in enumerate(ANSWERS, start=2):
        page = student_lab(chromium, hub, student)
        assignments_tab(page)
        page.get_by_role("button", name="Fetch").click()
        page.get_by_role("button", name="Submit").wait_for(timeout=LOAD_MS)
        screenshot(page, f"hub-{number}-{without_run(student)}-fetched")
        answer(page, hub, student)
        assignments_tab(page)
        page.get_by_role("button", name="Submit").click()
        page.get_by_role("button", name="Fetch Feedback").wait_for(timeout=LOAD_MS)
        screenshot(page, f"hub-{number}-{without_run(student)}-submitted")
        students[student] = page
    # Nobody else's work is in reach of a student: the other's home and the exchange's inbound.
    for student, other in ((STUDENT1, STUDENT2), (STUDENT2, STUDENT1)):
        denied = hub_run(hub, student, "ls", f"/home/{other}/{LESSON}")
        assert denied.returncode != 0
        denied = hub_run(hub, student, "ls", os.path.join(hub.exchange, COURSE_ID, "inbound"))
        assert denied.returncode != 0 or not denied.stdout.strip()

    # 4. The instructor collects the submissions.
    assert "Successfully collected" in formgrader_action(
        instructor, formgrader(instructor, hub), "collect", "collected"
    )
    screenshot(instructor, "hub-4-instructor-collected")

    # 5. ... grades them with the course's grader, into the PostgreSQL gradebook ...
    graded = hub.as_grader(sys.executable, "-m", "autograder", "grade", LESSON)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    assert "2 graded" in graded.stdout
    from nbgrader.api import Gradebook

    with Gradebook(hub.db_url, COURSE_ID) as gb:
        scores = {s: gb.find_submission(LESSON, s).score for s in ANSWERS}
        maximum = gb.find_assignment(LESSON).max_score
    assert scores == {STUDENT1: maximum, STUDENT2: maximum - 4}  # never_clears fails both train_step tests
    instructor.goto(f"{hub.url}/services/{COURSE_ID}/formgrader/manage_submissions/{LESSON}", timeout=LOAD_MS)
    rows = instructor.locator("#main-table tr", has_text="student")
    expect(rows).to_have_count(2, timeout=LOAD_MS)
    table = instructor.locator("#main-table").inner_text()
    for student, score in scores.items():  # the formgrader shows the grades from PostgreSQL
        assert re.search(rf"{student}.*\b{score:g} / {maximum:g}\b", table), table
    screenshot(instructor, "hub-5-instructor-graded")

    # 6. ... and generates and releases feedback.
    row = formgrader(instructor, hub)
    assert "Successfully generated feedback" in formgrader_action(instructor, row, "generate-feedback", "generated")
    row = formgrader(instructor, hub)
    assert "Successfully released feedback" in formgrader_action(instructor, row, "release-feedback", "released")
    screenshot(instructor, "hub-6-instructor-released-feedback")

    # 7. Each student fetches their feedback and sees the diagnosis of their own code only.
    for number, (student, page) in enumerate(students.items(), start=7):
        assignments_tab(page)
        page.get_by_role("button", name="Fetch Feedback").click()
        feedback = []
        for _ in range(120):
            feedback = glob.glob(f"/home/{student}/{LESSON}/feedback/*/{LESSON}.html")
            if feedback:
                break
            page.wait_for_timeout(500)
        assert feedback, f"{student} got no feedback"
        relative = os.path.relpath(feedback[0], f"/home/{student}")
        page.goto(f"{hub.url}/user/{student}/files/{relative}", timeout=LOAD_MS)
        text = page.locator("body").inner_text()
        page.get_by_text("Your results at a glance").first.scroll_into_view_if_needed()  # the summary on screen
        screenshot(page, f"hub-{number}-{without_run(student)}-feedback")
        if student == STUDENT2:
            assert "never_clears" in text and "Gradients pile up" in text
        else:
            assert "never_clears" not in text and "✅ train_step" in text
        assert "BEGIN HIDDEN TESTS" not in text and "seed=12" not in text  # the hidden tests stay hidden
        other = STUDENT1 if student == STUDENT2 else STUDENT2
        assert other not in text


def hub_run(hub, user: str, *command: str):
    return subprocess.run(["runuser", "-u", user, "--", *command], capture_output=True, text=True)


def test_grader_runs_on_postgresql(hub):
    done = hub.as_grader("id", "-un")
    assert done.stdout.strip() == GRADER
    config = open(os.path.join(hub.course, "nbgrader_config.py")).read()
    assert "AUTOGRADER_DB_URL" in config
