"""The course image behind a real JupyterHub: a student's server is the image's
`jupyterhub-singleuser` in a container (tests/hub/podman_spawner.py, as KubeSpawner would start a
pod) and lists the released assignment; the course's grading server is the image in a container
as hub/k8s/grader.yaml declares it (its security context, the grader account, the course folder),
reached as the hub service `autograd-course`, and its formgrader answers an instructor through the
hub and refuses a student.  The grading server takes its command, environment, volumes and security
context from the manifest, with this machine's addresses for the cluster's (the hub's API, its own
URL) and no gradebook Secret (its gradebook is then the course folder's SQLite file).

The hub is hub/jupyterhub_config.py with three things swapped for the test: the login (a dummy
authenticator with one password: no local accounts are needed, the containers bring their own
user), the spawner, and the grading service, which runs outside the hub as on Kubernetes.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import pytest
import yaml

from tests.course_copy import copy_working_tree
from tests.hub.conftest import COURSE_ID, proxy_command
from tests.hub.image import LIMITS, PODMAN
from tests.hub.pods import K8S, declared_containers, host_uid, podman_options, run_as
from tests.postgres import free_port

pytestmark = [pytest.mark.hub, pytest.mark.slow]

ROSTER = {"instructors": ["instructor1"], "tas": [], "students": ["student1"]}
GRADER_CONTAINER = f"{COURSE_ID}-grader-test"
EXCHANGE = "/srv/nbgrader/exchange"
LESSON = "lesson1_requires_grad"

CONFIG = """
import json, os
c = get_config()  # noqa: F821
load_subconfig(os.environ["COURSE_HUB_CONFIG"])  # noqa: F821 - the course's own hub configuration
test = json.loads(os.environ["IMAGE_HUB_TEST"])
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = test["password"]
c.JupyterHub.spawner_class = "tests.hub.podman_spawner.PodmanSpawner"
c.PodmanSpawner.cmd = test["podman"]
c.PodmanSpawner.image = test["image"]
c.PodmanSpawner.podman_options = test["user_options"]
c.PodmanSpawner.image_environment = test["user_environment"]
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.JupyterHub.services = [
    {"name": test["course"], "url": test["service_url"], "api_token": test["service_token"],
     "oauth_no_confirm": True, "oauth_client_id": "service-" + test["course"],
     "oauth_redirect_uri": test["hub_url"] + "/services/" + test["course"] + "/oauth_callback"},
]
c.ConfigurableHTTPProxy.api_url = test["proxy_api"]
"""


def call(url: str, token: str, method: str = "GET", body: dict | None = None) -> tuple[int, str]:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Authorization": f"token {token}"} if token else {}
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


def wait_for(url: str, what: str, log, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=3):
                return
        except urllib.error.HTTPError:
            return  # it answers (with a redirect to log in, say)
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"{what} did not answer at {url}:\n{log()}")


@pytest.fixture(scope="module")
def image_hub(course_image):
    grader = next(c for c in declared_containers() if c.name == "grader")
    with open(os.path.join(K8S, "values.yaml")) as f:
        singleuser = yaml.safe_load(f)["singleuser"]
    assert [m["mountPath"] for m in singleuser["storage"]["extraVolumeMounts"]] == [EXCHANGE]
    base = tempfile.mkdtemp(prefix="autograd-image-hub-", dir="/var/tmp")
    os.chmod(base, 0o755)
    course = copy_working_tree(os.path.join(base, "course"), untracked=True)
    exchange, state = os.path.join(base, "exchange"), os.path.join(base, "state")
    os.makedirs(exchange)
    os.chmod(exchange, 0o1777)  # nbgrader's file exchange: everyone writes, each keeps their own
    os.makedirs(state)
    folders = {"course": course, "exchange": exchange}  # the grading server's volumes
    uid, gid = run_as(grader)
    for where, dirs, files in os.walk(course):  # the course volume belongs to the grader account
        for name in [where, *(os.path.join(where, n) for n in dirs + files)]:
            os.lchown(name, host_uid(grader, uid), host_uid(grader, gid))
    roster = os.path.join(state, "roster.toml")
    with open(roster, "w") as f:
        f.writelines(f"{group} = {names!r}\n".replace("'", '"') for group, names in ROSTER.items())
    hub_port, api_port, service_port = free_port(), free_port(), free_port()
    # JupyterHub 6.1 takes no API token of 64 characters or more: 48 here
    hub_url, service_token = f"http://127.0.0.1:{hub_port}", secrets.token_hex(24)
    api_url = f"http://127.0.0.1:{api_port}/hub/api"
    test = {
        "password": secrets.token_urlsafe(12), "podman": PODMAN, "image": course_image, "course": COURSE_ID,
        # a user's pod as hub/k8s/values.yaml asks Zero to JupyterHub for it: its user, its settings, the exchange
        "user_options": ["--user", f"{singleuser['uid']}:{singleuser['fsGid']}", "-v", f"{exchange}:{EXCHANGE}"],
        "user_environment": singleuser["extraEnv"],
        "service_url": f"http://127.0.0.1:{service_port}", "service_token": service_token,
        "hub_url": hub_url, "proxy_api": f"http://127.0.0.1:{free_port()}",
    }  # fmt: skip
    config = os.path.join(state, "image_hub_config.py")
    with open(config, "w") as f:
        f.write(CONFIG)
    environment = {
        **os.environ, "COURSE_HUB_CONFIG": os.path.join(course, "hub", "jupyterhub_config.py"),
        "IMAGE_HUB_TEST": json.dumps(test), "AUTOGRAD_ROSTER": roster, "AUTOGRAD_COURSE_ROOT": course,
        "AUTOGRAD_HUB_STATE": state, "AUTOGRAD_HUB_IP": "127.0.0.1", "AUTOGRAD_HUB_PORT": str(hub_port),
        "AUTOGRAD_PROXY": proxy_command(), "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
        "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}",
    }  # fmt: skip
    log_path = os.path.join(state, "hub.log")
    log = open(log_path, "wb")  # noqa: SIM115
    hub = subprocess.Popen([os.path.join(os.path.dirname(sys.executable), "jupyterhub"), "-f", config,
                            f"--JupyterHub.hub_port={api_port}"], cwd=state, env=environment, stdout=log,
                           stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
    # The course's grading server, as the Deployment of hub/k8s/grader.yaml runs it: its command,
    # environment and security context, with this machine's addresses for the cluster's.
    local = {"JUPYTERHUB_API_URL": api_url, "JUPYTERHUB_SERVICE_URL": test["service_url"],
             "JUPYTERHUB_API_TOKEN": service_token}  # fmt: skip
    service_env = {item["name"]: local.get(item["name"], item.get("value")) for item in grader.spec["env"]}
    assert None not in service_env.values(), service_env  # every value from a Secret has a local one
    command = [{"--port=8888": f"--port={service_port}", "--ip=0.0.0.0": "--ip=127.0.0.1"}.get(part, part)
               for part in grader.spec["command"]]  # fmt: skip
    mounts = [f"-v={folders[m['name']]}:{m['mountPath']}" for m in grader.spec["volumeMounts"]]
    subprocess.run([*PODMAN, "rm", "-f", GRADER_CONTAINER], capture_output=True)
    started = subprocess.run(
        [*PODMAN, "run", "-d", "--name", GRADER_CONTAINER, "--network", "host", *LIMITS, *podman_options(grader),
         *mounts, "-w", grader.spec["workingDir"], *(f"--env={k}={v}" for k, v in service_env.items()),
         course_image, *command],
        capture_output=True, text=True,
    )  # fmt: skip
    assert started.returncode == 0, started.stderr

    def logs() -> str:
        with open(log_path, errors="replace") as f:
            hub_log = f.read()[-4000:]
        grader_log = subprocess.run([*PODMAN, "logs", "--tail", "40", GRADER_CONTAINER], capture_output=True, text=True)
        return f"hub:\n{hub_log}\ngrading server:\n{grader_log.stdout[-3000:]}{grader_log.stderr[-3000:]}"

    try:
        wait_for(f"{hub_url}/hub/health", "JupyterHub", logs)
        wait_for(f"{test['service_url']}/services/{COURSE_ID}/api", "the grading server", logs)
        yield {**test, "api": f"{hub_url}/hub/api", "logs": logs}
    finally:
        hub.send_signal(signal.SIGTERM)
        try:
            hub.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, signal.SIGKILL)
        subprocess.run([*PODMAN, "rm", "-f", "-t", "5", GRADER_CONTAINER, "jupyter-student1"], capture_output=True)
        log.close()
        shutil.rmtree(base, ignore_errors=True)


def in_grading_server(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([*PODMAN, "exec", "-w", "/srv/course", GRADER_CONTAINER, *command],
                          capture_output=True, text=True, timeout=600)  # fmt: skip


def token_for(hub: dict, user: str, *scopes: str) -> str:
    """A token of the user's own, asked for with their login (as a script of theirs would)."""
    login = {"auth": {"username": user, "password": hub["password"]}, "scopes": list(scopes)}
    status, body = call(f"{hub['api']}/users/{user}/tokens", "", "POST", login)
    assert status in (200, 201), f"{body}\n{hub['logs']()}"
    return json.loads(body)["token"]


def test_the_grading_server_in_the_image_releases_an_assignment(image_hub):
    for step in (["nbgrader", "generate_assignment", LESSON, "--force"], ["nbgrader", "release_assignment", LESSON]):
        done = in_grading_server(*step)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_the_formgrader_answers_an_instructor_through_the_hub_and_refuses_a_student(image_hub):
    url = f"{image_hub['hub_url']}/services/{COURSE_ID}/formgrader/api/assignments"
    instructor = token_for(image_hub, "instructor1", f"access:services!service={COURSE_ID}")
    status, body = call(url, instructor)
    assert status == 200, f"{status} {body[:500]}\n{image_hub['logs']()}"
    assert any(a["name"] == LESSON for a in json.loads(body)), body[:1000]
    student = token_for(image_hub, "student1", "access:servers!user=student1")
    assert call(url, student)[0] == 403


def test_a_students_server_from_the_image_lists_the_released_assignment(image_hub):
    token = token_for(image_hub, "student1", "servers!user=student1", "read:servers!user=student1",
                      "access:servers!user=student1")  # fmt: skip
    status, body = call(f"{image_hub['api']}/users/student1/server", token, "POST")
    assert status in (201, 202), body
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        status, body = call(f"{image_hub['api']}/users/student1", token)
        server = json.loads(body).get("servers", {}).get("", {})
        if server.get("ready"):
            break
        time.sleep(1)
    else:
        raise AssertionError(f"student1's server did not start:\n{image_hub['logs']()}")
    status, body = call(f"{image_hub['hub_url']}/user/student1/assignments?course_id={COURSE_ID}", token)
    assert status == 200, f"{status} {body[:500]}\n{image_hub['logs']()}"
    listed = json.loads(body)
    assert listed["success"] and [a["assignment_id"] for a in listed["value"]] == [LESSON], listed
    status, _ = call(f"{image_hub['hub_url']}/services/{COURSE_ID}/formgrader/api/assignments", token)
    assert status == 403  # the formgrader stays the instructors'
