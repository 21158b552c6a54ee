"""Starting and stopping a JupyterHub for a test: the one way every hub test does it.

``jupyterhub(state, config, environment)`` starts the hub of ``config`` (hub/jupyterhub_config.py,
or a test's file that loads it and swaps a few settings) in the folder ``state``, with this
Python's environment first on PATH, waits until it answers, and stops it afterwards (its users'
servers and its services with it).  Its log stays in test-artifacts/ for a failed run.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass

from tests.browser.lab import ARTIFACTS
from tests.conftest import ROOT

COURSE_HUB_CONFIG = os.path.join(ROOT, "hub", "jupyterhub_config.py")
# A test's configuration file: the course's own (which it names), then the test's settings.
WRAPPER = """import json, os
c = get_config()  # noqa: F821
load_subconfig(os.environ["COURSE_HUB_CONFIG"])  # noqa: F821 - the course's own hub configuration
test = json.loads(os.environ["HUB_TEST"])
"""


@dataclass
class RunningHub:
    url: str
    process: subprocess.Popen
    log_path: str

    def log(self, tail: int = 6000) -> str:
        with open(self.log_path, errors="replace") as f:
            return f.read()[-tail:]


# After a test's settings: a test that replaces the hub's services (declared only, or run elsewhere)
# takes them out of the course's roles too, since JupyterHub refuses a role naming an undefined service.
PRUNE_ROLES = """
_defined = {service["name"] for service in c.JupyterHub.services}
c.JupyterHub.load_roles = [
    {**role, "services": [name for name in role["services"] if name in _defined]} if "services" in role else role
    for role in c.JupyterHub.load_roles
]
"""


def wrapper(state: str, settings: str) -> str:
    """A configuration file in ``state``: the course's hub configuration, then ``settings`` (Python
    that reads the test's values from ``test``, a dict given as ``HUB_TEST``)."""
    path = os.path.join(state, "test_hub_config.py")
    with open(path, "w") as f:
        f.write(WRAPPER + settings + "\n" + PRUNE_ROLES)
    return path


@contextlib.contextmanager
def jupyterhub(state: str, config: str, environment: dict, log_name: str = "hub.log",
               seconds: float = 120) -> Iterator[RunningHub]:  # fmt: skip
    """The hub of ``config``, listening on 127.0.0.1 at ``environment["AUTOGRADER_HUB_PORT"]``."""
    url = f"http://127.0.0.1:{environment['AUTOGRADER_HUB_PORT']}"
    env = {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}", **environment}
    log_path = os.path.join(state, "hub.log")
    log = open(log_path, "wb")  # noqa: SIM115 - closed below, after the hub
    command = [os.path.join(os.path.dirname(sys.executable), "jupyterhub"), "-f", config]
    process = subprocess.Popen(
        command, cwd=state, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    hub = RunningHub(url, process, log_path)
    try:
        deadline = time.monotonic() + seconds
        while True:
            try:
                with urllib.request.urlopen(f"{url}/hub/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None:
                raise AssertionError(f"JupyterHub stopped:\n{hub.log()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"JupyterHub did not answer:\n{hub.log()}")
            time.sleep(0.3)
        yield hub
    finally:
        process.send_signal(signal.SIGTERM)  # the hub stops its users' servers and its services
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()
        os.makedirs(ARTIFACTS, exist_ok=True)
        shutil.copy(log_path, os.path.join(ARTIFACTS, log_name))
