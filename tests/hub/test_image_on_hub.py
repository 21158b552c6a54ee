"""The course image behind a real JupyterHub, as hub/k8s/ declares it: a student's server is the
image's `jupyterhub-singleuser` in a container (tests/hub/podman_spawner.py, as KubeSpawner would
start a pod from values.yaml's singleuser settings) and lists the released assignment; the
course's grading server and ngshare, the exchange, are the image in containers started as the
Deployments of grader.yaml declare them (command, environment, volumes, security context), reached
as the hub's services `autograd-course` and `ngshare`.  The grading server releases through
ngshare, its formgrader answers an instructor through the hub and refuses a student.

The hub is hub/jupyterhub_config.py with a few things swapped for the test: the login (a dummy
authenticator with one password: the containers bring their own user), the spawner, the services
(outside the hub, as on Kubernetes), and this machine's addresses for the cluster's (the hub's
API, the services' URLs, `proxy-public`).  The grading server has no gradebook Secret here: its
gradebook is the course folder's SQLite file.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest
import yaml

from tests.conftest import ROOT
from tests.course_copy import copy_working_tree
from tests.hub.conftest import proxy_command
from tests.hub.image import LIMITS, PODMAN
from tests.hub.launch import jupyterhub, wrapper
from tests.hub.pods import K8S, declared_containers, give_volume, podman_options
from tests.postgres import free_port

pytestmark = [pytest.mark.hub, pytest.mark.slow]

# The deployment's own course (hub/k8s/, a roster without [courses.<id>]): its users live in the containers,
# not on this machine, so these names are no other test's.
COURSE_ID = "autograd-course"
ROSTER = {"instructors": ["instructor1"], "tas": [], "students": ["student1"]}
RUN = secrets.token_hex(3)  # this run's containers' names: another run on the machine has its own
GRADER_CONTAINER, NGSHARE_CONTAINER = f"{COURSE_ID}-grader-{RUN}", f"{COURSE_ID}-ngshare-{RUN}"
LESSON = "lesson1_requires_grad"

SETTINGS = """
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = test["password"]
c.JupyterHub.spawner_class = "tests.hub.podman_spawner.PodmanSpawner"
c.PodmanSpawner.cmd = test["podman"]
c.PodmanSpawner.image = test["image"]
c.PodmanSpawner.podman_options = test["user_options"]
c.PodmanSpawner.image_environment = test["user_environment"]
c.PodmanSpawner.name_template = "jupyter-{username}-" + test["run"]
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.JupyterHub.services = [
    {"name": test["course"], "url": test["service_url"], "api_token": test["service_token"],
     "oauth_no_confirm": True, "oauth_client_id": "service-" + test["course"],
     "oauth_redirect_uri": test["hub_url"] + "/services/" + test["course"] + "/oauth_callback"},
    {"name": "ngshare", "url": test["ngshare_url"], "api_token": test["ngshare_token"]},
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


def start_declared(image: str, container, name: str, local: dict, folders: dict, command: dict) -> None:
    """Start a Deployment's container of hub/k8s/ in the image, detached: its command (``command``
    swaps parts of it), environment (``local`` gives this machine's values for the cluster's and
    the Secrets'), volumes (``folders`` by volume name) and security context."""
    env = {item["name"]: local.get(item["name"], item.get("value")) for item in container.spec["env"]}
    assert None not in env.values(), env  # every value from a Secret has a local one
    mounts = [f"-v={folders[m['name']]}:{m['mountPath']}" for m in container.spec.get("volumeMounts", [])]
    subprocess.run([*PODMAN, "rm", "-f", name], capture_output=True)
    started = subprocess.run(
        [*PODMAN, "run", "-d", "--name", name, "--network", "host", *LIMITS, *podman_options(container), *mounts,
         *(["-w", container.spec["workingDir"]] if "workingDir" in container.spec else []),
         *(f"--env={k}={v}" for k, v in env.items()), image, *(command.get(p, p) for p in container.spec["command"])],
        capture_output=True, text=True,
    )  # fmt: skip
    assert started.returncode == 0, started.stderr


def container_log(name: str) -> str:
    done = subprocess.run([*PODMAN, "logs", "--tail", "40", name], capture_output=True, text=True)
    return f"{name}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def image_hub(course_image):
    declared = {c.name: c for c in declared_containers()}
    grader, ngshare = declared["grader"], declared["ngshare"]
    with open(os.path.join(K8S, "values.yaml")) as f:
        singleuser = yaml.safe_load(f)["singleuser"]
    base = tempfile.mkdtemp(prefix="autograd-image-hub-", dir="/var/tmp")
    os.chmod(base, 0o755)
    course = copy_working_tree(os.path.join(base, "course"), untracked=True)
    state, ngshare_data, roster_folder = (os.path.join(base, name) for name in ("state", "ngshare", "roster"))
    for folder in (state, ngshare_data, roster_folder):
        os.makedirs(folder)
    give_volume(course, grader)
    give_volume(ngshare_data, ngshare)
    os.chmod(roster_folder, 0o755)  # a ConfigMap's volume is readable by the pod's user
    roster = os.path.join(roster_folder, "roster.toml")  # the ConfigMap autograd-roster, as a folder
    with open(roster, "w") as f:
        f.writelines(f"{group} = {names!r}\n".replace("'", '"') for group, names in ROSTER.items())
    os.chmod(roster, 0o644)
    hub_port, api_port, service_port, ngshare_port = free_port(), free_port(), free_port(), free_port()
    # JupyterHub 6.1 takes no API token of 64 characters or more: 48 here
    hub_url, service_token, ngshare_token = f"http://127.0.0.1:{hub_port}", secrets.token_hex(24), secrets.token_hex(24)
    api_url = f"http://127.0.0.1:{api_port}/hub/api"
    through_proxy = f"{hub_url}/services/ngshare"  # what http://proxy-public/services/ngshare is on the cluster
    test = {
        "password": secrets.token_urlsafe(12), "podman": PODMAN, "image": course_image, "course": COURSE_ID,
        # a user's pod as hub/k8s/values.yaml asks Zero to JupyterHub for it: its user and its settings
        "user_options": ["--user", f"{singleuser['uid']}:{singleuser['fsGid']}"],
        "user_environment": {**singleuser["extraEnv"], "AUTOGRADER_NGSHARE_URL": through_proxy},
        "service_url": f"http://127.0.0.1:{service_port}", "service_token": service_token,
        "ngshare_url": f"http://127.0.0.1:{ngshare_port}", "ngshare_token": ngshare_token,
        "hub_url": hub_url, "proxy_api": f"http://127.0.0.1:{free_port()}", "run": RUN,
    }  # fmt: skip
    environment = {
        "COURSE_HUB_CONFIG": os.path.join(course, "hub", "jupyterhub_config.py"), "HUB_TEST": json.dumps(test),
        "AUTOGRADER_ROSTER": roster, "AUTOGRADER_COURSE_ROOT": course, "AUTOGRADER_HUB_STATE": state,
        "AUTOGRADER_HUB_IP": "127.0.0.1", "AUTOGRADER_HUB_PORT": str(hub_port),
        "AUTOGRADER_HUB_API_PORT": str(api_port),
        "AUTOGRADER_PROXY": proxy_command(), "PYTHONPATH": ROOT,
    }  # fmt: skip
    # ngshare and the course's grading server, as the Deployments of hub/k8s/grader.yaml run them,
    # with this machine's addresses for the cluster's.
    start_declared(course_image, ngshare, NGSHARE_CONTAINER, {
        "JUPYTERHUB_API_URL": api_url, "JUPYTERHUB_SERVICE_URL": f"http://0.0.0.0:{ngshare_port}",
        "JUPYTERHUB_API_TOKEN": ngshare_token}, {"ngshare": ngshare_data, "roster": roster_folder}, {})  # fmt: skip
    start_declared(course_image, grader, GRADER_CONTAINER, {
        "JUPYTERHUB_API_URL": api_url, "JUPYTERHUB_SERVICE_URL": test["service_url"],
        "JUPYTERHUB_API_TOKEN": service_token, "AUTOGRADER_NGSHARE_URL": through_proxy}, {"course": course},
        {"--port=8888": f"--port={service_port}", "--ip=0.0.0.0": "--ip=127.0.0.1"})  # fmt: skip

    try:
        with jupyterhub(state, wrapper(state, SETTINGS), environment, "image-hub.log") as hub:

            def logs() -> str:
                return f"hub:\n{hub.log(4000)}\n{container_log(GRADER_CONTAINER)}\n{container_log(NGSHARE_CONTAINER)}"

            wait_for(f"{test['service_url']}/services/{COURSE_ID}/api", "the grading server", logs)
            wait_for(f"{test['ngshare_url']}/services/ngshare/", "ngshare", logs)
            yield {**test, "api": f"{hub_url}/hub/api", "logs": logs}
    finally:
        containers = [GRADER_CONTAINER, NGSHARE_CONTAINER, f"jupyter-student1-{RUN}"]  # --ignore: those already gone
        subprocess.run([*PODMAN, "rm", "--force", "--ignore", "--time", "5", *containers], capture_output=True)
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


def test_grading_server_releases(image_hub):
    for step in (["nbgrader", "generate_assignment", LESSON, "--force"], ["nbgrader", "release_assignment", LESSON]):
        done = in_grading_server(*step)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_formgrader_refuses_students(image_hub):
    url = f"{image_hub['hub_url']}/services/{COURSE_ID}/formgrader/api/assignments"
    instructor = token_for(image_hub, "instructor1", f"access:services!service={COURSE_ID}")
    status, body = call(url, instructor)
    assert status == 200, f"{status} {body[:500]}\n{image_hub['logs']()}"
    assert any(a["name"] == LESSON for a in json.loads(body)), body[:1000]
    student = token_for(image_hub, "student1", "access:servers!user=student1")
    assert call(url, student)[0] == 403


def test_student_sees_the_release(image_hub):
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
    seen = call(f"{image_hub['hub_url']}/services/ngshare/assignments/{COURSE_ID}", token)  # ngshare's own view
    assert listed["success"] and [a["assignment_id"] for a in listed["value"]] == [LESSON], (seen, image_hub["logs"]())
    status, _ = call(f"{image_hub['hub_url']}/services/{COURSE_ID}/formgrader/api/assignments", token)
    assert status == 403  # the formgrader stays the instructors'
