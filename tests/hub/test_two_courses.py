"""Two courses on one JupyterHub, in Chromium: autograd (instructor1, ta1, student1, student2)
and spring (instructor2, student1, student3), each with its grader account, course folder,
gradebook (a PostgreSQL database of its own) and exchange folder, as hub/roster.py's two-course
roster gives them.  Each course releases one lesson; student1 fetches both from the Assignments tab,
student2 and student3 see only their own course; each instructor opens their course's formgrader
and is refused the other's.

Screenshots of each step: test-artifacts/browser/two-courses-<step>.png."""

from __future__ import annotations

import os
import time

import pytest
from playwright.sync_api import Page, expect

from tests.browser.lab import screenshot
from tests.hub.conftest import (
    COURSE_ID,
    INSTRUCTOR1,
    INSTRUCTOR2,
    ROSTER,
    SPRING,
    SPRING_ID,
    STUDENT1,
    STUDENT2,
    STUDENT3,
    running_hub,
    without_run,
)
from tests.hub.test_class_on_hub import LOAD_MS, assignment_row, assignments_tab, login, student_lab

pytestmark = [pytest.mark.hub, pytest.mark.slow]
RELEASED = {COURSE_ID: "lesson1_requires_grad", SPRING_ID: "lesson2_backward"}
COURSES = {COURSE_ID: ROSTER, SPRING_ID: SPRING}


@pytest.fixture(scope="module")
def two_courses(postgres, accounts, chromium):
    started = time.monotonic()
    with running_hub(postgres, accounts, "two_courses", "two-courses-hub.log", courses=COURSES) as hub:
        for course, lesson in RELEASED.items():
            for step in ("generate_assignment", "release_assignment"):
                done = hub.as_grader("nbgrader", step, lesson, "--force", course=course)
                assert done.returncode == 0, f"{course} {step}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
        print(f"\ntwo courses' hub up and both lessons released in {time.monotonic() - started:.1f} s")
        yield hub


def courses_listed(page: Page) -> list[str]:
    """The courses in the Assignments tab's course menu, once it has loaded them."""
    expect(page.locator("#course_list_dropdown")).to_be_enabled(timeout=LOAD_MS)
    return sorted(text.strip() for text in page.locator("#course_list li").all_inner_texts())


def show_course(page: Page, course: str) -> None:
    page.locator("#course_list li", has_text=course).evaluate("item => item.click()")
    expect(page.locator("#course_list_default")).to_have_text(course, timeout=LOAD_MS)
    expect(page.locator("#course_list_dropdown")).to_be_enabled(timeout=LOAD_MS)


def test_student_of_both_fetches_each(two_courses, chromium):
    page = student_lab(chromium, two_courses, STUDENT1)
    assignments_tab(page)
    assert courses_listed(page) == sorted(RELEASED)
    for course, lesson in RELEASED.items():
        show_course(page, course)
        released = page.locator("#released_assignments_list .list_item", has_text=lesson)
        released.get_by_role("button", name="Fetch").click()
        page.locator("#fetched_assignments_list .list_item", has_text=lesson).first.wait_for(timeout=LOAD_MS)
        screenshot(page, f"two-courses-1-student1-fetched-{without_run(course)}")
        # Each course's files in a folder of its own: two courses may both release "lesson1".
        assert os.path.isfile(f"/home/{STUDENT1}/{course}/{lesson}/{lesson}.ipynb")
        other = next(name for name in RELEASED if name != course)
        expect(page.locator("#released_assignments_list", has_text=RELEASED[other])).to_have_count(0)


@pytest.mark.parametrize("student, course", [(STUDENT2, COURSE_ID), (STUDENT3, SPRING_ID)], ids=without_run)
def test_student_of_one_sees_only_it(two_courses, chromium, student, course):
    page = student_lab(chromium, two_courses, student)
    assignments_tab(page)
    assert courses_listed(page) == [course]
    expect(page.locator("#released_assignments_list .list_item", has_text=RELEASED[course])).to_have_count(1)
    other = next(name for name in RELEASED if name != course)
    expect(page.locator("#released_assignments_list", has_text=RELEASED[other])).to_have_count(0)
    screenshot(page, f"two-courses-2-{without_run(student)}")


@pytest.mark.parametrize(
    "instructor, own, other",
    [(INSTRUCTOR1, COURSE_ID, SPRING_ID), (INSTRUCTOR2, SPRING_ID, COURSE_ID)],
    ids=without_run,
)
def test_own_formgrader_only(two_courses, chromium, instructor, own, other):
    page = login(chromium, two_courses, instructor)
    page.wait_for_url(f"**/user/{instructor}/lab**", timeout=LOAD_MS)
    page.goto(f"{two_courses.url}/services/{own}/formgrader", timeout=LOAD_MS)
    assignment_row(page, RELEASED[own]).wait_for(timeout=LOAD_MS)
    screenshot(page, f"two-courses-3-{without_run(instructor)}-own-formgrader")
    refused = page.goto(f"{two_courses.url}/services/{other}/formgrader", timeout=LOAD_MS)
    assert refused.status == 403, f"{refused.status} {page.content()[-1500:]}"
    expect(page.locator("#main-table")).to_have_count(0)
    screenshot(page, f"two-courses-4-{without_run(instructor)}-refused-{without_run(other)}")


def test_own_gradebook_and_exchange(two_courses, postgres):
    for course, lesson in RELEASED.items():
        database = two_courses.db_urls[course].rsplit("/", 1)[1]
        assert postgres.sql("SELECT name FROM assignment", database=database).split() == [lesson]
        outbound = os.path.join(two_courses.exchange, course, "outbound")
        assert os.listdir(outbound) == [lesson]
        # its grader's, who owns the course's working folders (the course folder itself is root's)
        assert os.stat(outbound).st_uid == os.stat(os.path.join(two_courses.courses[course], "submitted")).st_uid
    graders = [os.stat(os.path.join(two_courses.courses[c], "submitted")).st_uid for c in (COURSE_ID, SPRING_ID)]
    assert graders[0] != graders[1]


def test_server_runs_as_its_grader(two_courses):
    import psutil

    def cwd(process):
        try:
            return process.cwd()
        except psutil.Error:  # gone meanwhile
            return None

    for course in RELEASED:
        # (other hubs of the test run may have grading servers of their own: this hub's is in its folder)
        servers = [
            process
            for process in psutil.process_iter(["username", "cmdline"])
            if "singleuser" in str(process.info["cmdline"]) and cwd(process) == two_courses.courses[course]
        ]
        assert [server.info["username"] for server in servers] == [f"grader-{course}"]
        environment = servers[0].environ()
        assert environment["AUTOGRADER_COURSE_ID"] == course
        assert environment["AUTOGRADER_DB_URL"] == two_courses.db_urls[course]
        assert environment["JUPYTERHUB_SERVICE_NAME"] == course
