"""With AUTOGRADER_EXCHANGE_KIND=ngshare the hub's exchange is ngshare, which knows who submitted by
the hub login of the token that sent it: what holds on Kubernetes, where every user runs as one uid.

One hub for this file (hub/jupyterhub_config.py with AUTOGRADER_EXCHANGE_KIND=ngshare: the hub runs
hub/ngshare_service.py as its service, which enrols the roster), and one story on lesson 2 (the other
hub tests use lessons 1 and 3): the grader releases it from the grading server's terminal; student1
and student2 fetch it; student2 submits their work; student1 submits theirs, then tries to submit in
student2's name twice (nbgrader's ``--CourseDirectory.student_id=student2``, then their server's
environment saying JUPYTERHUB_USER=student2, with their own token); the grader collects, grades, makes
and releases feedback; each student fetches theirs.  Every command runs as its local account with
the environment its server has: a student's own hub token (minted through the hub's REST API with
their password), the grading service's token read from that server's own environment."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import psutil
import pytest

from tests.course_copy import read, write
from tests.hub.conftest import COURSE_ID, GRADER, ROSTER, STUDENT1, STUDENT2, running_hub
from tests.postgres import run

pytestmark = [pytest.mark.hub, pytest.mark.slow]
LESSON = "lesson2_backward"


@pytest.fixture(scope="module")
def hub(postgres, accounts):
    with running_hub(postgres, accounts, "autograd_course_ngshare", log_name="hub-ngshare.log",
                     AUTOGRADER_EXCHANGE_KIND="ngshare") as hub:  # fmt: skip
        for _ in range(240):  # ngshare is up and the roster enrolled
            if "ngshare_service: course" in hub.log(100_000) or hub.process.poll() is not None:
                break  # the hub stops when ngshare cannot start: its log says why
            time.sleep(0.5)
        assert f"ngshare_service: course {COURSE_ID}: 3 instructors, 2 students" in hub.log(100_000), hub.log()
        yield hub


def grading_server_environment(hub) -> dict[str, str]:
    """The environment of the grading service's own process (what its terminals inherit)."""
    for process in psutil.process_iter(["username", "cmdline"]):
        cmdline = " ".join(process.info["cmdline"] or [])
        if process.info["username"] == GRADER and "jupyterhub-singleuser" in cmdline and hub.course in cmdline:
            return process.environ()
    raise AssertionError(f"no grading server running:\n{hub.log()}")


def token_for(hub, user: str) -> str:
    """A hub API token for ``user``, asked for with their own password (the hub's REST API)."""
    body = json.dumps({"auth": {"username": user, "password": hub.password}, "note": "test"}).encode()
    request = urllib.request.Request(f"{hub.url}/hub/api/users/{user}/tokens", data=body, method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)["token"]


@pytest.fixture(scope="module")
def servers(hub) -> dict[str, dict[str, str]]:
    """Each account's server environment: the grading service's as it is; a student's with the hub's
    settings for every server (taken from the grading service's), their Jupyter settings and their token."""
    grader = grading_server_environment(hub)
    common = {k: v for k, v in grader.items() if k.startswith("AUTOGRADER_") and k != "AUTOGRADER_DB_URL"}
    environments = {GRADER: grader}
    for student in ROSTER["students"]:
        environments[student] = {
            **common, "PATH": grader["PATH"], "HOME": f"/home/{student}", "USER": student,
            "JUPYTERHUB_USER": student, "JUPYTERHUB_API_URL": grader["JUPYTERHUB_API_URL"],
            "JUPYTERHUB_API_TOKEN": token_for(hub, student),
            "JUPYTER_CONFIG_PATH": f"{hub.course}/hub/etc/student:{hub.course}/hub/etc/jupyter",
        }  # fmt: skip
    return environments


def as_account(servers, user: str, *command: str, cwd: str | None = None, **overrides: str):
    """``command`` as the local account ``user``, with their server's environment (and ``overrides``)."""
    # Exactly that environment, handed to runuser rather than spelled out on a command line: it holds
    # tokens and the gradebook's password, and every account can read a command line in /proc.
    umask = ["sh", "-c", 'umask 077 && exec "$@"', "sh"]
    return run(*umask, *command, user=user, check=False, cwd=cwd or servers[user]["HOME"], timeout=900,
               env={**servers[user], **overrides})  # fmt: skip


def ok(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def mark(student: str, marker: str) -> None:
    """A marker in the student's fetched notebook (its metadata; the file keeps its owner)."""
    path = f"/home/{student}/{LESSON}/{LESSON}.ipynb"
    nb = read(path)
    nb["metadata"]["marker"] = marker
    write(path, nb)


def ngshare(servers, user: str, path: str, **query: str) -> tuple[int, dict]:
    """An ngshare API call as ``user`` would make it with curl: their own token, anything else as they like."""
    url = (
        servers[GRADER]["AUTOGRADER_NGSHARE_URL"] + "/" + path + ("?" + urllib.parse.urlencode(query) if query else "")
    )
    request = urllib.request.Request(url, headers={"Authorization": f"token {servers[user]['JUPYTERHUB_API_TOKEN']}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


@pytest.fixture(scope="module")
def story(hub, servers):
    started = time.monotonic()
    steps = {}
    ok(as_account(servers, GRADER, "nbgrader", "generate_assignment", LESSON, "--force", cwd=hub.course))
    steps["release"] = as_account(servers, GRADER, "nbgrader", "release_assignment", LESSON, cwd=hub.course)
    steps["list released"] = as_account(servers, STUDENT2, "nbgrader", "list")
    for student in (STUDENT2, STUDENT1):
        steps[f"fetch {student}"] = done = as_account(servers, student, "nbgrader", "fetch_assignment", LESSON)
        fetched = f"/home/{student}/{LESSON}/{LESSON}.ipynb"
        assert os.path.isfile(fetched), steps["release"].stderr[-2000:] + done.stderr[-2000:]
    mark(STUDENT2, f"{STUDENT2}'s own work")
    steps[f"submit {STUDENT2}"] = as_account(servers, STUDENT2, "nbgrader", "submit", LESSON)
    mark(STUDENT1, f"{STUDENT1}'s own work")
    steps[f"submit {STUDENT1}"] = as_account(servers, STUDENT1, "nbgrader", "submit", LESSON)
    time.sleep(1)
    mark(STUDENT1, f"{STUDENT1} with --student_id={STUDENT2}")
    steps[f"student_id={STUDENT2}"] = as_account(
        servers, STUDENT1, "nbgrader", "submit", LESSON, f"--CourseDirectory.student_id={STUDENT2}"
    )
    mark(STUDENT1, f"{STUDENT1} with JUPYTERHUB_USER={STUDENT2}")
    steps[f"JUPYTERHUB_USER={STUDENT2}"] = as_account(
        servers, STUDENT1, "nbgrader", "submit", LESSON, JUPYTERHUB_USER=STUDENT2, USER=STUDENT2
    )
    steps["student collects"] = as_account(servers, STUDENT1, "nbgrader", "collect", LESSON)
    steps["collect"] = as_account(servers, GRADER, "nbgrader", "collect", LESSON, cwd=hub.course)
    steps["grade"] = as_account(servers, GRADER, sys.executable, "-m", "autograder", "grade", LESSON, cwd=hub.course)
    steps["generate feedback"] = as_account(servers, GRADER, "nbgrader", "generate_feedback", LESSON, cwd=hub.course)
    steps["release feedback"] = as_account(servers, GRADER, "nbgrader", "release_feedback", LESSON, cwd=hub.course)
    steps["list submitted"] = as_account(servers, STUDENT2, "nbgrader", "list", "--cached")
    for student in (STUDENT1, STUDENT2):
        steps[f"fetch feedback {student}"] = as_account(servers, student, "nbgrader", "fetch_feedback", LESSON)
    steps["seconds"] = time.monotonic() - started
    return steps


def collected_marker(hub, student: str) -> str:
    return read(os.path.join(hub.course, "submitted", student, LESSON, f"{LESSON}.ipynb"))["metadata"]["marker"]


def feedback_pages(student: str) -> list[str]:
    return glob.glob(f"/home/{student}/{LESSON}/feedback/*/{LESSON}.html")


def test_hub_enrols_the_roster(hub, servers):
    status, answer = ngshare(servers, GRADER, f"instructors/{COURSE_ID}")
    assert status == 200, answer
    assert {i["username"] for i in answer["instructors"]} == {COURSE_ID, *ROSTER["instructors"], *ROSTER["tas"]}
    status, answer = ngshare(servers, GRADER, f"students/{COURSE_ID}")
    assert {s["username"] for s in answer["students"]} == set(ROSTER["students"])


def test_whole_story_uses_ngshare(hub, story):
    for step in ("release", f"fetch {STUDENT1}", f"fetch {STUDENT2}", f"submit {STUDENT1}", f"submit {STUDENT2}",
                 "collect", "grade", "generate feedback", "release feedback", f"fetch feedback {STUDENT1}",
                 f"fetch feedback {STUDENT2}"):  # fmt: skip
        ok(story[step])
    assert glob.glob(os.path.join(hub.exchange, "*", "*", "*")) == []  # nothing went through the file exchange
    print(f"the story took {story['seconds']:.1f} s")


def test_list_shows_feedback_ready(story):
    assert f"{COURSE_ID} {LESSON}" in story["list released"].stderr + story["list released"].stdout
    listed = story["list submitted"].stderr + story["list submitted"].stdout
    assert f"{COURSE_ID} {STUDENT2} {LESSON}" in listed and "(feedback ready to be fetched)" in listed, listed


def test_each_student_fetched_release(story):
    for student in ROSTER["students"]:
        assert os.path.isfile(f"/home/{student}/{LESSON}/{LESSON}.ipynb")


def test_other_student_id_refused(story):
    done = story[f"student_id={STUDENT2}"]
    assert "not possible with ngshare" in done.stdout + done.stderr


def test_student2s_work_collected(hub, story):
    assert collected_marker(hub, STUDENT2) == f"{STUDENT2}'s own work"


def test_jupyterhub_user_cannot_spoof(hub, story, servers):
    assert collected_marker(hub, STUDENT1) == f"{STUDENT1} with JUPYTERHUB_USER={STUDENT2}"
    status, answer = ngshare(servers, GRADER, f"submissions/{COURSE_ID}/{LESSON}")
    assert status == 200, answer
    counts = {s: sum(1 for x in answer["submissions"] if x["student_id"] == s) for s in ROSTER["students"]}
    assert counts == {STUDENT1: 2, STUDENT2: 1}


def test_student_cannot_collect(story):
    done = story["student collects"]
    assert "Permission denied" in done.stdout + done.stderr


def test_each_student_fetched_feedback(story):
    for student in ROSTER["students"]:
        pages = feedback_pages(student)
        assert len(pages) == 1, pages
        assert "<html" in open(pages[0]).read().lower()


def test_student2s_work_is_private(hub, story, servers):
    status, answer = ngshare(servers, GRADER, f"submissions/{COURSE_ID}/{LESSON}/{STUDENT2}")
    timestamp = answer["submissions"][0]["timestamp"]
    for path, query in (
        (f"feedback/{COURSE_ID}/{LESSON}/{STUDENT2}", {"timestamp": timestamp}),
        (f"submission/{COURSE_ID}/{LESSON}/{STUDENT2}", {}),
        (f"submissions/{COURSE_ID}/{LESSON}/{STUDENT2}", {}),
    ):
        status, answer = ngshare(servers, STUDENT1, path, **query)
        assert status == 403 and not answer["success"], (path, answer)
    done = as_account(servers, STUDENT1, "nbgrader", "fetch_feedback", LESSON, JUPYTERHUB_USER=STUDENT2,
                      USER=STUDENT2)  # fmt: skip
    assert "Permission denied" in done.stdout + done.stderr
    assert len(feedback_pages(STUDENT1)) == 1


def test_ngshare_state_is_hubs_only(hub, story):
    for name in ("ngshare.sqlite", "ngshare-files"):
        status = os.stat(os.path.join(hub.state, name))
        assert status.st_uid == 0 and status.st_mode & 0o077 == 0, (name, oct(status.st_mode))
