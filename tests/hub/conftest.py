"""A real JupyterHub for one class, on this machine: local accounts made for the test (PAM logs them
in), PostgreSQL started by the test in its own data folder (the gradebook), configurable-http-proxy
from npm, the course's hub configuration (hub/) on a clone of the course, and Chromium.

Everything is made here and removed afterwards, the accounts too.  Every name a test makes on the
machine (accounts, course ids and so the graders' accounts and the instructors' groups they name) is
its run's own (``own``): hub test files run beside each other in several pytest-xdist workers, and
each kills and removes only what its own run made.  The fixtures need root (accounts, a hub that
spawns servers as other users), bubblewrap, Debian's PostgreSQL server and Chromium; `.ci/run` installs them.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from tests.browser.lab import CHROMIUM_ARGS, HEADLESS_SHELL
from tests.conftest import ROOT
from tests.course_copy import copy_working_tree
from tests.hub.image import course_image  # noqa: F401 - a fixture of the image tests
from tests.hub.launch import jupyterhub, wrapper
from tests.postgres import Postgres, free_port, postgres_bin, run

# What two test runs (two pytest-xdist workers, or two suites on one machine) would otherwise share:
# a suffix of their own, the worker's number then random hex (``0a3f9``).  Files of one worker run one
# after another and share its accounts; the suffix keeps every name within useradd's 32 characters.
RUN = os.environ.get("PYTEST_XDIST_WORKER", "").removeprefix("gw") + secrets.token_hex(2)


def own(name: str) -> str:
    """``name`` made this run's own: ``student1`` → ``student1-0a3f9`` (an account, a course id...)."""
    return f"{name}-{RUN}"


def without_run(name: str) -> str:
    """``name`` as the tests call it (``student1``): a test's id, the same in every worker (pytest-xdist
    refuses workers that collect different tests)."""
    return name.removesuffix(f"-{RUN}")


# Course ids are short: the hub names accounts and groups after them (grader-<id>, instructors-<id>).
COURSE_ID = own("autograd")
GRADER = f"grader-{COURSE_ID}"
STUDENT1, STUDENT2, STUDENT3 = own("student1"), own("student2"), own("student3")
INSTRUCTOR1, INSTRUCTOR2, TA1 = own("instructor1"), own("instructor2"), own("ta1")
ROSTER = {"instructors": [INSTRUCTOR1], "tas": [TA1], "students": [STUDENT1, STUDENT2]}
# A second course on the same hub (tests/hub/test_two_courses.py): student1 takes both.
SPRING_ID = own("spring")
SPRING = {"instructors": [INSTRUCTOR2], "tas": [], "students": [STUDENT1, STUDENT3]}
ACCOUNTS = list(dict.fromkeys([*sum(ROSTER.values(), []), *sum(SPRING.values(), []), GRADER, f"grader-{SPRING_ID}"]))
# hub/install.py makes each course's instructors' group (instructors-<course id>) if it is missing.
GROUPS = [f"instructors-{COURSE_ID}", f"instructors-{SPRING_ID}"]
CHP_VERSION = "5.3.0"

pytestmark = [pytest.mark.hub, pytest.mark.slow]


def proxy_command() -> str:
    """configurable-http-proxy: from PATH, or installed once from npm into .cache/hub-node."""
    found = shutil.which("configurable-http-proxy")
    if found:
        return found
    prefix = os.path.join(ROOT, ".cache", "hub-node")
    command = os.path.join(prefix, "node_modules", ".bin", "configurable-http-proxy")
    os.makedirs(prefix, exist_ok=True)
    with open(os.path.join(prefix, ".installing"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two workers' first hubs at once: one npm install, the other waits
        if not os.path.exists(command):
            if shutil.which("npm") is None:
                pytest.fail("npm is needed to install configurable-http-proxy (apt-get install npm)", pytrace=False)
            subprocess.run(["npm", "install", "--silent", "--prefix", prefix, f"configurable-http-proxy@{CHP_VERSION}"],
                           check=True, capture_output=True, timeout=600)  # fmt: skip
    return command


def make_account(name: str, password: str) -> None:
    """A fresh local account with a fresh home (an earlier run's files would change the story)."""
    for _ in range(20):  # a killed process takes a moment to go, and userdel refuses an account in use
        if run("id", name, check=False).returncode != 0:
            break
        run("pkill", "-KILL", "-u", name, check=False)
        run("userdel", "--remove", name, check=False)
        time.sleep(0.25)
    else:
        still = run("ps", "-u", name, "-o", "pid,ppid,args", check=False).stdout
        raise AssertionError(f"the account {name} stays in use (a leftover hub restarting its services?):\n{still}")
    run("useradd", "--create-home", "--shell", "/bin/bash", name)
    subprocess.run(["chpasswd"], input=f"{name}:{password}", text=True, check=True)


def make_accounts(prefix: str, count: int, password: str) -> list[str]:
    """``count`` fresh accounts of this run, ``<prefix>01-<run>``, ``<prefix>02-<run>``, ... (a class of
    students), all with ``password``."""
    names = [own(f"{prefix}{number:02d}") for number in range(1, count + 1)]
    for name in names:
        make_account(name, password)
    return names


def remove_accounts(names: list[str]) -> None:
    """Accounts made for one run go, with their homes and anything of theirs still running."""
    for name in names:
        run("pkill", "-KILL", "-u", name, check=False)
        for _ in range(20):  # userdel refuses an account whose processes are still going
            if run("userdel", "--remove", name, check=False).returncode in (0, 6):  # 6: no such account
                break
            time.sleep(0.25)


def remove_groups(names: list[str]) -> None:
    """Groups made for one run go (a group that is not there is fine: no hub of the run installed it)."""
    for name in names:
        run("groupdel", name, check=False)


@dataclass
class Hub:
    url: str
    password: str
    course: str
    exchange: str
    state: str
    db_url: str
    process: subprocess.Popen
    environment: dict = field(default_factory=dict)
    courses: dict = field(default_factory=dict)  # course id: its folder
    db_urls: dict = field(default_factory=dict)  # course id: its gradebook

    def log(self, tail: int = 6000) -> str:
        with open(os.path.join(self.state, "hub.log"), errors="replace") as f:
            return f.read()[-tail:]

    def as_grader(self, *command: str, timeout: float = 900, course: str = COURSE_ID) -> subprocess.CompletedProcess:
        """A command as a course's grader account, in its course folder, with the hub's settings
        and umask (077, which its terminals inherit): what an instructor types in the grading
        server's terminal."""
        folder, grader = self.courses.get(course, self.course), f"grader-{course}"
        env = ["env", f"AUTOGRADER_COURSE_ID={course}", f"JUPYTER_CONFIG_PATH={folder}/hub/etc/jupyter",
               f"AUTOGRADER_EXCHANGE={self.exchange}", f"HOME=/home/{grader}",
               f"PATH={os.path.dirname(sys.executable)}:/usr/bin:/bin"]  # fmt: skip
        umask = ["sh", "-c", 'umask 077 && exec "$@"', "sh"]
        # The gradebook's password goes through the environment (runuser keeps it), never on a command
        # line, which every account on the machine can read in /proc while the command runs.
        environment = dict(os.environ, AUTOGRADER_DB_URL=self.db_urls.get(course, self.db_url))
        return run(*env, *umask, *command, user=grader, check=False, cwd=folder, timeout=timeout, env=environment)


@pytest.fixture(scope="package")
def postgres(tmp_path_factory):
    """One PostgreSQL server for the package; each test makes its own databases in it."""
    if postgres_bin() is None:
        pytest.fail("these tests need Debian's postgresql (see .ci/run)", pytrace=False)
    base = tempfile.mkdtemp(prefix="autograd-pg-", dir="/var/tmp")
    os.chmod(base, 0o755)
    server = Postgres.start(os.path.join(base, "pg"))
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def accounts():
    """The roster's and the graders' local accounts of this run, made fresh for each test file (fresh
    homes: no file sees what another left there, whichever ran first in the worker); their password.
    Afterwards they go, with the instructors' groups the hubs' installs made."""
    if os.geteuid() != 0:
        pytest.skip("the hub tests make local accounts and run JupyterHub as root")
    password = secrets.token_urlsafe(12)
    try:
        for name in ACCOUNTS:
            make_account(name, password)
        yield password
    finally:
        remove_accounts(ACCOUNTS)
        remove_groups(GROUPS)


def roster_toml(courses: dict[str, dict], roots: dict[str, str]) -> str:
    """A roster of several courses (hub/roster.py), each in its folder ``roots[id]``."""
    lines = []
    for course, people in courses.items():
        lines.append(f"[courses.{course}]")
        lines += [f"{role} = {names!r}".replace("'", '"') for role, names in people.items()]
        lines += [f'root = "{roots[course]}"', ""]
    return "\n".join(lines)


@contextlib.contextmanager
def running_hub(postgres, password: str, database: str, log_name: str = "hub.log", courses: dict | None = None,
                roster: dict | None = None, overlay: str | None = None, **settings: str) -> Iterator[Hub]:  # fmt: skip
    """The course's hub (hub/jupyterhub_config.py) on a fresh copy of the course, its gradebook the
    PostgreSQL database ``database``, every port its own (several hubs can run at once), with the
    hub's environment variables ``settings`` on top (e.g. AUTOGRADER_EXCHANGE_KIND="ngshare").

    ``courses`` (course id: its people): a hub of several courses instead, each with a copy of the
    course of its own, installed with hub/install.py, and a gradebook of its own (``database`` with
    the course id after it, named through AUTOGRADER_DB_URL's ``{course}``).

    ``roster`` (role: names): the one course's people instead of ROSTER (e.g. a class of 30).
    ``overlay``: Python run after the course's hub configuration (tests/hub/launch.py's ``wrapper``;
    its values come as HUB_TEST in ``settings``)."""
    proxy = proxy_command()
    base = tempfile.mkdtemp(prefix="autograd-hub-", dir="/var/tmp")
    os.chmod(base, 0o755)  # the accounts read the course's hub settings there
    exchange, state = os.path.join(base, "exchange"), os.path.join(base, "state")
    os.makedirs(state)
    people = roster or ROSTER  # the one course's people (``roster`` names its file from here on)
    roster = os.path.join(state, "roster.toml")
    several = courses is not None
    courses = courses or {COURSE_ID: people}
    roots = {course: os.path.join(base, "course" if not several else course) for course in courses}
    with open(roster, "w") as f:  # a table per course even for one: the course id is this run's (COURSE_ID)
        f.write(roster_toml(courses, roots))
    db_urls = {}
    for course, root in roots.items():
        copy_working_tree(root, untracked=True)
        done = run(sys.executable, os.path.join(root, "hub", "install.py"), "--course", root, "--course-id", course,
                   "--exchange", exchange, "--roster", roster, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        db_urls[course] = postgres.database(f"{database}_{course.replace('-', '_')}" if several else database)
    db_url = db_urls[COURSE_ID]
    if several:  # the hub names each course's database by {course}
        db_url = db_url.rsplit("/", 1)[0] + f"/{database}_{{course}}"
    course = roots[COURSE_ID]
    port = free_port()
    environment = {
        **os.environ,
        "AUTOGRADER_ROSTER": roster, "AUTOGRADER_DB_URL": db_url,
        "AUTOGRADER_EXCHANGE": exchange, "AUTOGRADER_HUB_STATE": state, "AUTOGRADER_HUB_IP": "127.0.0.1",
        "AUTOGRADER_HUB_PORT": str(port), "AUTOGRADER_SERVICE_PORT": str(free_port()), "AUTOGRADER_PROXY": proxy,
        "AUTOGRADER_HUB_API_PORT": str(free_port()), "AUTOGRADER_PROXY_API_PORT": str(free_port()),
        "AUTOGRADER_NGSHARE_PORT": str(free_port()),
        **({} if several else {"AUTOGRADER_COURSE_ROOT": course}),
        **settings,
    }  # fmt: skip
    config = os.path.join(course, "hub", "jupyterhub_config.py")
    if overlay is not None:  # the course's configuration, then the caller's settings on top
        environment["COURSE_HUB_CONFIG"] = config
        environment.setdefault("HUB_TEST", "{}")  # an overlay that reads no values needs none
        config = wrapper(state, overlay)
    try:
        with jupyterhub(state, config, environment, log_name) as running:
            yield Hub(running.url, password, course, exchange, state, db_urls[COURSE_ID], running.process,
                      environment, roots, db_urls)  # fmt: skip
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def hub(request, postgres, accounts):
    """The one course's hub, for one test file (its gradebook named after the file): a file sees no
    assignment another released, whichever ran first in the worker."""
    if shutil.which("bwrap") is None:
        pytest.fail("the hub test needs bubblewrap (see .ci/run)", pytrace=False)
    database = f"autograd_course_{request.module.__name__.rsplit('.', 1)[-1]}"
    with running_hub(postgres, accounts, database) as hub:
        yield hub


@pytest.fixture(scope="package")
def chromium():
    from playwright.sync_api import sync_playwright

    if not os.path.exists(HEADLESS_SHELL):
        pytest.fail(f"the hub's browser tests need {HEADLESS_SHELL} (apt-get install chromium-headless-shell; "
                    "see .ci/run)", pytrace=False)  # fmt: skip
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=HEADLESS_SHELL, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
