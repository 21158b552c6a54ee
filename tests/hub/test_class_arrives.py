"""Five students arrive at once on a hub whose spawn limit is two (tests/hub/load.py drives them over
HTTP, as their browsers would): the ones over the limit meet the "class is starting" page and wait,
and every one of them still reaches JupyterLab with no failure page, fetches, answers, submits; two
run the notebook's check in a kernel first.  Then the grader collects and grades, and every
submission is in the gradebook with the score its answer deserves."""

from __future__ import annotations

import pytest

from tests.course_copy import CORRECT_TRAIN_STEP, NEVER_CLEARS
from tests.hub.conftest import INSTRUCTOR1, make_accounts, remove_accounts, running_hub
from tests.hub.load import answers_for, collect_and_grade, drive_class, release, scores_right

pytestmark = [pytest.mark.hub, pytest.mark.slow]
SPAWN_LIMIT = 2
TRAIN_STEPS = [CORRECT_TRAIN_STEP, NEVER_CLEARS, CORRECT_TRAIN_STEP, CORRECT_TRAIN_STEP, NEVER_CLEARS]
LOSS = {CORRECT_TRAIN_STEP: 0, NEVER_CLEARS: 4}  # never_clears fails both train_step tests (2 points each)


@pytest.fixture(scope="module")
def arrival(postgres, accounts):
    students = make_accounts("arrive", len(TRAIN_STEPS), accounts)
    roster = {"instructors": [INSTRUCTOR1], "tas": [], "students": students}
    train_steps = dict(zip(students, TRAIN_STEPS, strict=True))
    checkers = (students[0], students[1])  # one right answer, one wrong, through the kernel's check
    try:
        with running_hub(postgres, accounts, "class_arrives", "class-arrives-hub.log", roster=roster,
                         AUTOGRADER_SPAWN_LIMIT=str(SPAWN_LIMIT)) as hub:  # fmt: skip
            release(hub)
            run = drive_class(hub, students, answers_for(hub.course, train_steps), self_check=checkers, seed=34,
                              timeout=150)  # fmt: skip
            collect_and_grade(hub)
            expected = {student: LOSS[code] for student, code in train_steps.items()}
            yield hub, run, checkers, scores_right(hub, expected)
    finally:
        remove_accounts(students)


def test_every_student_reaches_jupyterlab_with_no_failure(arrival):
    hub, run, _, _ = arrival
    errors = {name: visit.errors + visit.failures for name, visit in run.visits.items() if visit.errors}
    assert not errors, f"{errors}\n{hub.log()}"
    assert all(visit.reached_lab and not visit.failures for visit in run.visits.values())


def test_students_over_the_spawn_limit_wait_on_the_class_is_starting_page(arrival):
    hub, run, _, _ = arrival
    from autograder.settings import SETTINGS

    # The hub reads its spawn limit through the settings registry (hub/capacity.py), from this variable.
    assert SETTINGS.settings["spawn_limit"].env == "AUTOGRADER_SPAWN_LIMIT"
    assert sum(visit.waits for visit in run.visits.values()) > 0
    assert all(visit.reached_lab for visit in run.visits.values())
    # The page a waiting student sees reloads itself after the hub's Retry-After, like the client did.
    pages = [page for visit in run.visits.values() for page in visit.starting_pages]
    assert pages and all(retry.isdigit() and refresh == retry for retry, refresh in pages), pages


def test_every_submission_is_collected_and_scored_right(arrival):
    _, run, _, (right, problems) = arrival
    assert all(visit.submitted for visit in run.visits.values())
    assert not problems
    assert right == len(TRAIN_STEPS)


def test_the_kernel_check_passes_the_right_train_step_and_not_the_wrong(arrival):
    _, run, (right, wrong), _ = arrival
    assert run.visits[right].checked is True
    assert run.visits[wrong].checked is False
    assert all(visit.checked is None for name, visit in run.visits.items() if name not in (right, wrong))
