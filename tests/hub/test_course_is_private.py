"""On the hub, the course folder is the grader account's and the instructors' only, and a submission
carries its owner and the server's time.

One story, on lesson 1 (lesson 3 is test_class_on_hub's): the grader account releases it; student2
submits; student1 submits in student2's name (`nbgrader submit --CourseDirectory.student_id=student2`)
and then their own work with a forged early time (nbgrader's submit with its clock set to 2020);
the grader collects, grades student1 and makes their feedback.  Students act from their shells
(`runuser -u student1 -- ...`) with their servers' settings; the grader from the grading server's
terminal's (hub.as_grader).  Then each claim is checked by what the accounts can and cannot do."""

from __future__ import annotations

import datetime
import glob
import os
import pwd
import re
import stat
import subprocess
import sys
import time
import urllib.parse

import pytest
from playwright.sync_api import expect

from tests.browser.lab import screenshot
from tests.course_copy import read, write
from tests.hub.conftest import ACCOUNTS, COURSE_ID, GRADER, INSTRUCTOR1, ROSTER, STUDENT1, STUDENT2, without_run
from tests.postgres import run

pytestmark = [pytest.mark.hub, pytest.mark.slow]
LESSON = "lesson1_requires_grad"
EARLY = "2020-01-01 09:00:00.000000 UTC"
LOAD_MS = 180_000
# nbgrader's own submit, with the submitter's clock set to an early date: the folder's name and its
# timestamp.txt both say 2020.
FORGED_SUBMIT = f"""
from nbgrader.apps.submitapp import SubmitApp
from nbgrader.exchange.default.submit import ExchangeSubmit
ExchangeSubmit.set_timestamp = lambda self: setattr(self, "timestamp", {EARLY!r})
SubmitApp.launch_instance(["{LESSON}"])
"""


def as_user(hub, user: str, *command: str, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    """A command in ``user``'s shell, in their home, with the settings the hub gives their server."""
    settings = [f"{hub.course}/hub/etc/jupyter"]
    if user in ROSTER["students"]:
        settings.insert(0, f"{hub.course}/hub/etc/student")
    env = ["env", "-i", f"HOME=/home/{user}", f"USER={user}", f"JUPYTER_CONFIG_PATH={':'.join(settings)}",
           f"AUTOGRADER_EXCHANGE={hub.exchange}", f"AUTOGRADER_COURSE_ID={COURSE_ID}",
           f"PATH={os.path.dirname(sys.executable)}:/usr/bin:/bin"]  # fmt: skip
    return run(*env, *command, user=user, check=False, cwd=f"/home/{user}", timeout=timeout, **kwargs)


def mark_notebook(student: str, marker: str) -> None:
    """Leave a marker in the student's fetched notebook (in its metadata: the cells stay as handed out)."""
    path = f"/home/{student}/{LESSON}/{LESSON}.ipynb"
    nb = read(path)
    nb["metadata"]["marker"] = marker
    write(path, nb)  # as root: the file keeps its owner


def ok(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def story(hub):
    started = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    ok(hub.as_grader("nbgrader", "generate_assignment", LESSON, "--force"))
    ok(hub.as_grader("nbgrader", "release_assignment", LESSON, "--force"))
    for student in (STUDENT2, STUDENT1):
        ok(as_user(hub, student, "nbgrader", "fetch_assignment", LESSON))
    mark_notebook(STUDENT2, f"{STUDENT2}'s own work")
    ok(as_user(hub, STUDENT2, "nbgrader", "submit", LESSON))
    time.sleep(1)  # student1's submission in student2's name is the later one: nbgrader's collect took it
    mark_notebook(STUDENT1, f"{STUDENT1}'s work, in {STUDENT2}'s name")
    impersonation = ok(as_user(hub, STUDENT1, "nbgrader", "submit", LESSON, f"--CourseDirectory.student_id={STUDENT2}"))
    mark_notebook(STUDENT1, f"{STUDENT1}'s own work, claiming 2020")
    forged = ok(as_user(hub, STUDENT1, sys.executable, "-c", FORGED_SUBMIT))
    collected = hub.as_grader("nbgrader", "collect", LESSON)
    due = started - datetime.timedelta(hours=1)
    ok(hub.as_grader("nbgrader", "db", "assignment", "add", LESSON, f"--duedate={due.isoformat()} UTC"))
    graded = hub.as_grader(sys.executable, "-m", "autograder", "grade", LESSON, "--student", STUDENT1)
    feedback = hub.as_grader("nbgrader", "generate_feedback", LESSON, "--student", STUDENT1)
    return {"started": started, "impersonation": impersonation, "forged": forged, "collected": collected,
            "graded": graded, "feedback": feedback}  # fmt: skip


def inbound(hub, pattern: str) -> list[str]:
    return glob.glob(os.path.join(hub.exchange, COURSE_ID, "inbound", pattern))


def test_the_story_ran_to_the_end(story):
    for step in ("collected", "graded", "feedback"):
        ok(story[step])


def test_impersonation_refused(hub, story):
    assert f"{STUDENT2}+{LESSON}+" in story["impersonation"].stderr  # nbgrader's submit took it
    log = story["collected"].stderr
    assert re.search(rf"Refused {STUDENT2}'s submission of {LESSON} .*belongs to {STUDENT1}, not {STUDENT2}", log), log
    [record] = [read(path) for path in glob.glob(f"{hub.course}/.autograder/refused-submissions/*.json")]
    assert record["student_id"] == STUDENT2 and any(f"belongs to {STUDENT1}" in p for p in record["problems"])
    assert os.path.isdir(record["inbound"])  # left in the exchange for the instructor
    assert len(inbound(hub, f"{STUDENT2}+{LESSON}+*")) == 2


def test_student2s_work_collected(hub, story):
    collected = read(f"{hub.course}/submitted/{STUDENT2}/{LESSON}/{LESSON}.ipynb")
    assert collected["metadata"]["marker"] == f"{STUDENT2}'s own work"


def test_forged_timestamp_is_replaced(hub, story):
    [forged] = [path for path in inbound(hub, f"{STUDENT1}+{LESSON}+2020-01-01*")]
    with open(os.path.join(forged, "timestamp.txt")) as f:
        assert f.read() == EARLY  # the forgery is real: both the name and timestamp.txt say 2020
    assert read(f"{hub.course}/submitted/{STUDENT1}/{LESSON}/{LESSON}.ipynb")["metadata"]["marker"] == (
        f"{STUDENT1}'s own work, claiming 2020"
    )
    with open(f"{hub.course}/submitted/{STUDENT1}/{LESSON}/timestamp.txt") as f:
        recorded = datetime.datetime.strptime(f.read(), "%Y-%m-%d %H:%M:%S.%f UTC")
    assert story["started"] <= recorded <= datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    assert "claims to be from 2020-01-01T09:00:00" in story["collected"].stderr


def test_late_penalty_uses_server_time(hub, story):
    from nbgrader.api import Gradebook

    with Gradebook(hub.db_url, COURSE_ID) as gb:
        submission = gb.find_submission(LESSON, STUDENT1)
        assert submission.timestamp >= story["started"]
        assert submission.total_seconds_late >= 3600


CLOSED = [
    "notebooks", f"notebooks/{LESSON}/{LESSON}.ipynb", "release", f"release/{LESSON}/{LESSON}.ipynb",
    "submitted", f"submitted/{STUDENT2}/{LESSON}/{LESSON}.ipynb",
    f"submitted/{STUDENT2}/{LESSON}/submission_secret.txt",
    "autograded", f"autograded/{STUDENT1}/{LESSON}/{LESSON}.ipynb", "feedback",
    f"feedback/{STUDENT1}/{LESSON}/{LESSON}.html", ".autograder", f".autograder/{LESSON}.json",
    ".autograder/refused-submissions", "reports", ".", "nbgrader_config.py", "hub", "hub/roster.toml",
    "hub/jupyterhub_config.py", "hub/install.py",
]  # fmt: skip


@pytest.mark.parametrize("student", ROSTER["students"], ids=without_run)
def test_closed_parts_unreadable(hub, story, student):
    for relative in CLOSED:
        path = os.path.normpath(os.path.join(hub.course, relative))
        assert os.path.exists(path), f"{relative} should exist for this test to mean something"
        attempt = ("ls", "-a", path) if os.path.isdir(path) else ("cat", path)
        done = as_user(hub, student, *attempt)
        assert done.returncode != 0 and not done.stdout, f"{student} could read {relative}: {done.stdout[:200]}"
        assert "Permission denied" in done.stderr
    for path in glob.glob(f"{hub.course}/.autograder/refused-submissions/*.json"):
        assert as_user(hub, student, "cat", path).returncode != 0
    found = as_user(hub, student, "find", hub.course)  # everything a student's shell can see in it
    visible = sorted(os.path.relpath(line, hub.course) for line in found.stdout.split())
    allowed = ("hub/etc", "autograder", "gradlessons")
    assert [path for path in visible if path not in (".", "hub") and not path.startswith(allowed)] == []


@pytest.mark.parametrize("student", ROSTER["students"], ids=without_run)
def test_no_writes_into_submitted(hub, story, student):
    for command in (
        ("touch", f"{hub.course}/submitted/{student}/{LESSON}/extra.py"),
        ("mkdir", f"{hub.course}/submitted/intruder"),
        ("cp", "/etc/hostname", f"{hub.course}/submitted/{STUDENT2}/{LESSON}/{LESSON}.ipynb"),
        ("rm", "-rf", f"{hub.course}/submitted/{STUDENT2}"),
    ):
        assert as_user(hub, student, *command).returncode != 0, command
    assert read(f"{hub.course}/submitted/{STUDENT2}/{LESSON}/{LESSON}.ipynb")["metadata"]["marker"] == (
        f"{STUDENT2}'s own work"
    )


def test_cannot_touch_others_work(hub, story):
    [honest] = [path for path in inbound(hub, f"{STUDENT2}+{LESSON}+*") if _owner(path) == STUDENT2]
    assert as_user(hub, STUDENT1, "ls", os.path.dirname(honest)).returncode != 0
    assert as_user(hub, STUDENT1, "mv", honest, honest + "-moved").returncode != 0
    assert as_user(hub, STUDENT1, "rm", "-rf", honest).returncode != 0
    assert os.path.isdir(honest)


def _owner(path: str) -> str:
    return pwd.getpwuid(os.stat(path).st_uid).pw_name


def test_outputs_closed_to_others(hub, story):
    for top in ("submitted", "autograded", ".autograder", "feedback"):
        for folder, folders, files in os.walk(os.path.join(hub.course, top)):
            # nbgrader makes feedback pages 0644 on purpose (release_feedback copies that mode into
            # the exchange, for the student): they sit behind feedback/'s closed folders.
            names = folders + [f for f in files if top != "feedback"]
            for name in [folder, *(os.path.join(folder, f) for f in names)]:
                mode = stat.S_IMODE(os.lstat(name).st_mode)
                assert mode & 0o007 == 0, f"{name} is {oct(mode)}"


def test_server_files_stay_readable(hub, story):
    for relative in ("hub/etc/jupyter/nbgrader_config.py", "hub/etc/student/labconfig/page_config.json",
                     "hub/etc/student/jupyter_server_config.d/autograd-course-student.json"):  # fmt: skip
        ok(as_user(hub, STUDENT1, "cat", os.path.join(hub.course, relative)))
    # The course's packages, imported as an editable install's finder imports them (by their path).
    for package, module in (("autograder", "autograder.checks"), ("gradlessons", "gradlessons.graph_explorer")):
        code = (
            "import importlib.util, sys\n"
            f"spec = importlib.util.spec_from_file_location({package!r}, {hub.course!r} + '/{package}/__init__.py')\n"
            f"sys.modules[{package!r}] = module = importlib.util.module_from_spec(spec)\n"
            "spec.loader.exec_module(module)\n"
            f"import {module}; print({module}.__file__)\n"
        )
        done = ok(as_user(hub, STUDENT1, sys.executable, "-c", code))
        assert done.stdout.startswith(os.path.join(hub.course, package))


@pytest.mark.parametrize("member", ROSTER["instructors"] + ROSTER["tas"], ids=without_run)
def test_instructors_read_course(hub, story, member):
    ok(as_user(hub, member, "cat", f"{hub.course}/notebooks/{LESSON}/{LESSON}.ipynb"))
    ok(as_user(hub, member, "ls", f"{hub.course}/submitted"))


def test_grader_home_is_private(hub, story):
    assert stat.S_IMODE(os.stat(f"/home/{GRADER}").st_mode) == 0o700
    assert as_user(hub, STUDENT1, "ls", f"/home/{GRADER}").returncode != 0


def test_gradebook_password_hidden(hub, story):
    password = urllib.parse.urlsplit(hub.db_url).password  # given on grep's stdin: not in its own cmdline
    places = [hub.course, hub.state, os.path.dirname(hub.course), "/home", "/tmp", "/var/tmp"]
    found = as_user(hub, STUDENT1, "grep", "-rlsF", "-f", "-", *places, timeout=600, input=password)
    assert found.stdout == ""
    processes = "grep -lsF -f - /proc/[0-9]*/environ /proc/[0-9]*/cmdline"
    assert as_user(hub, STUDENT1, "sh", "-c", processes, input=password).stdout == ""


def test_servers_run_under_umask_077(hub, story):
    own_uids = {str(pwd.getpwnam(name).pw_uid) for name in ACCOUNTS}
    servers = []
    for status in glob.glob("/proc/[0-9]*/status"):
        try:
            with open(status) as f:
                fields = dict(line.split(":\t", 1) for line in f.read().splitlines() if ":\t" in line)
            with open(status.replace("status", "cmdline"), "rb") as f:
                command = f.read()
        except OSError:
            continue
        if b"jupyterhub-singleuser" in command:
            servers.append((fields["Uid"].split()[0], fields["Umask"].strip()))
    # (other hubs of the test run, in other workers, run servers of their own: this run's accounts' only)
    servers = [(uid, umask) for uid, umask in servers if uid in own_uids]
    grader_uid = str(pwd.getpwnam(GRADER).pw_uid)
    assert any(uid == grader_uid for uid, _ in servers), servers
    assert {umask for _, umask in servers} == {"0077"}, servers


def test_formgrader_shows_refusal(hub, story, chromium):
    from tests.hub.test_class_on_hub import assignment_row, login

    page = login(chromium, hub, INSTRUCTOR1)
    page.goto(f"{hub.url}/services/{COURSE_ID}/formgrader", timeout=LOAD_MS)
    row = assignment_row(page, LESSON)
    row.wait_for(timeout=LOAD_MS)
    row.locator("td.collect a").click()
    dialog = page.locator(".modal-dialog", has_text="collected")
    dialog.wait_for(timeout=LOAD_MS)
    expect(dialog).to_contain_text(f"Refused {STUDENT2}'s submission", timeout=LOAD_MS)
    expect(dialog).to_contain_text(f"belongs to {STUDENT1}, not {STUDENT2}")
    screenshot(page, "hub-private-formgrader-refusal")
