"""The names the hub tests make on the machine (tests/hub/conftest.py's ``own``) are ones useradd,
groupadd and the hub's roster take, and are this run's only: hub files run beside each other in
several workers, so a name two runs shared would have one run kill or remove the other's."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.hub import conftest as names
from tests.hub.test_lti_course import INSTRUCTOR_CANVAS_1, INSTRUCTOR_CANVAS_2, LEARNER_FORGER, TA_THEN_LEARNER

_spec = importlib.util.spec_from_file_location("hub_roster", os.path.join(ROOT, "hub", "roster.py"))
roster = sys.modules["hub_roster"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(roster)

# A worker's number grows to two digits past ten workers: the names must fit then too.
LONGEST_RUN = 2 + 4
MADE = [
    *names.ACCOUNTS, *names.GROUPS, names.own("lecture03"), names.own("arrive05"),
    f"grader-{names.own('moodle')}", INSTRUCTOR_CANVAS_1, INSTRUCTOR_CANVAS_2, LEARNER_FORGER, TA_THEN_LEARNER,
    names.own("stranger-deployment"), names.own("handmade-lms1"),
]  # fmt: skip


@pytest.mark.parametrize("name", MADE, ids=names.without_run)
def test_a_name_the_tests_make_is_an_account_name_even_with_a_two_digit_worker(name):
    assert roster.ACCOUNT.fullmatch(name), name
    assert name == name.lower()
    assert len(name) - len(names.RUN) + LONGEST_RUN <= 32, name


def test_course_ids_are_ones_the_roster_takes():
    for course in (names.COURSE_ID, names.SPRING_ID):
        assert roster.COURSE_ID.fullmatch(course), course


def test_every_name_carries_the_run_and_loses_it_for_a_test_id():
    for name in MADE:
        assert names.RUN in name
    assert names.without_run(names.STUDENT1) == "student1"
    assert names.without_run(names.own("autograd")) == "autograd"


def run_of(worker: str) -> str:
    """The suffix a worker's run gets (the module's, imported afresh in a process of its own)."""
    code = "import tests.hub.conftest as names; print(names.RUN)"
    env = {**os.environ, "PYTEST_XDIST_WORKER": worker}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip


def test_two_workers_and_two_runs_of_one_worker_name_their_students_differently():
    first, second, again = run_of("gw0"), run_of("gw1"), run_of("gw0")
    assert first.startswith("0") and second.startswith("1")
    assert len({first, second, again}) == 3
