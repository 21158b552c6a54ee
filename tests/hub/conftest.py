"""A real JupyterHub for one class, on this machine: local accounts made for the test (PAM logs them
in), PostgreSQL started by the test in its own data folder (the gradebook), configurable-http-proxy
from npm, the course's hub configuration (hub/) on a clone of the course, and Chromium.

Everything is made here and removed afterwards, except the accounts (made again, with fresh homes,
by the next run).  The fixtures need root (accounts, a hub that spawns servers as other users),
bubblewrap, Debian's PostgreSQL server and Chromium; `.ci/run` installs them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from tests.browser.lab import CHROMIUM, CHROMIUM_ARGS
from tests.conftest import ROOT
from tests.course_copy import copy_working_tree
from tests.hub.image import course_image  # noqa: F401 - a fixture of the image tests
from tests.hub.launch import jupyterhub
from tests.postgres import Postgres, free_port, postgres_bin, run

COURSE_ID = "autograd-course"
GRADER = f"grader-{COURSE_ID}"
ROSTER = {"instructors": ["instructor1"], "tas": ["ta1"], "students": ["student1", "student2"]}
CHP_VERSION = "5.3.0"

pytestmark = [pytest.mark.hub, pytest.mark.slow]


def proxy_command() -> str:
    """configurable-http-proxy: from PATH, or installed once from npm into .cache/hub-node."""
    found = shutil.which("configurable-http-proxy")
    if found:
        return found
    prefix = os.path.join(ROOT, ".cache", "hub-node")
    command = os.path.join(prefix, "node_modules", ".bin", "configurable-http-proxy")
    if not os.path.exists(command):
        if shutil.which("npm") is None:
            pytest.fail("npm is needed to install configurable-http-proxy (apt-get install npm)", pytrace=False)
        subprocess.run(["npm", "install", "--silent", "--prefix", prefix, f"configurable-http-proxy@{CHP_VERSION}"],
                       check=True, capture_output=True, timeout=600)  # fmt: skip
    return command


def make_account(name: str, password: str) -> None:
    """A fresh local account with a fresh home (an earlier run's files would change the story)."""
    if run("id", name, check=False).returncode == 0:
        run("pkill", "-KILL", "-u", name, check=False)
        run("userdel", "--remove", name, check=False)
    run("useradd", "--create-home", "--shell", "/bin/bash", name)
    subprocess.run(["chpasswd"], input=f"{name}:{password}", text=True, check=True)


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

    def log(self, tail: int = 6000) -> str:
        with open(os.path.join(self.state, "hub.log"), errors="replace") as f:
            return f.read()[-tail:]

    def as_grader(self, *command: str, timeout: float = 900) -> subprocess.CompletedProcess:
        """A command as the course's grader account, in the course folder, with the hub's settings
        and umask (077, which its terminals inherit): what an instructor types in the grading
        server's terminal."""
        env = ["env", f"AUTOGRADER_DB_URL={self.db_url}", f"JUPYTER_CONFIG_PATH={self.course}/hub/etc/jupyter",
               f"AUTOGRAD_EXCHANGE={self.exchange}", f"HOME=/home/{GRADER}",
               f"PATH={os.path.dirname(sys.executable)}:/usr/bin:/bin"]  # fmt: skip
        umask = ["sh", "-c", 'umask 077 && exec "$@"', "sh"]
        return run(*env, *umask, *command, user=GRADER, check=False, cwd=self.course, timeout=timeout)


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


@pytest.fixture(scope="package")
def accounts():
    """The roster's and the grader's local accounts, made fresh once for the package (every hub of the
    package uses them); their password.  Afterwards nothing of theirs is left running."""
    if os.geteuid() != 0:
        pytest.skip("the hub tests make local accounts and run JupyterHub as root")
    password = secrets.token_urlsafe(12)
    for name in [*sum(ROSTER.values(), []), GRADER]:
        make_account(name, password)
    try:
        yield password
    finally:
        for name in [*sum(ROSTER.values(), []), GRADER]:
            run("pkill", "-KILL", "-u", name, check=False)


@contextlib.contextmanager
def running_hub(postgres, password: str, database: str, log_name: str = "hub.log", **settings: str) -> Iterator[Hub]:
    """The course's hub (hub/jupyterhub_config.py) on a fresh copy of the course, its gradebook the
    PostgreSQL database ``database``, every port its own (several hubs can run at once), with the
    hub's environment variables ``settings`` on top (e.g. AUTOGRAD_EXCHANGE_KIND="ngshare")."""
    proxy = proxy_command()
    base = tempfile.mkdtemp(prefix="autograd-hub-", dir="/var/tmp")
    os.chmod(base, 0o755)  # the accounts read the course's hub settings there
    db_url = postgres.database(database)
    course = copy_working_tree(os.path.join(base, "course"), untracked=True)
    exchange, state = os.path.join(base, "exchange"), os.path.join(base, "state")
    os.makedirs(state)
    roster = os.path.join(state, "roster.toml")
    with open(roster, "w") as f:
        f.writelines(f"{group} = {names!r}\n".replace("'", '"') for group, names in ROSTER.items())
    done = run(sys.executable, os.path.join(course, "hub", "install.py"), "--course", course, "--exchange", exchange,
               "--roster", roster, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    port = free_port()
    environment = {
        **os.environ,
        "AUTOGRAD_ROSTER": roster, "AUTOGRAD_COURSE_ROOT": course, "AUTOGRAD_DB_URL": db_url,
        "AUTOGRAD_EXCHANGE": exchange, "AUTOGRAD_HUB_STATE": state, "AUTOGRAD_HUB_IP": "127.0.0.1",
        "AUTOGRAD_HUB_PORT": str(port), "AUTOGRAD_SERVICE_PORT": str(free_port()), "AUTOGRAD_PROXY": proxy,
        "AUTOGRAD_HUB_API_PORT": str(free_port()), "AUTOGRAD_PROXY_API_PORT": str(free_port()),
        "AUTOGRAD_NGSHARE_PORT": str(free_port()),
        **settings,
    }  # fmt: skip
    config = os.path.join(course, "hub", "jupyterhub_config.py")
    try:
        with jupyterhub(state, config, environment, log_name) as running:
            yield Hub(running.url, password, course, exchange, state, db_url, running.process, environment)
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="package")
def hub(postgres, accounts):
    if shutil.which("bwrap") is None or not os.path.exists(CHROMIUM):
        pytest.fail("the hub test needs bubblewrap and chromium (see .ci/run)", pytrace=False)
    with running_hub(postgres, accounts, "autograd_course") as hub:
        yield hub


@pytest.fixture(scope="package")
def chromium():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
