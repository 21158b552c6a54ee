"""The Jupyter servers and nbgrader commands the course starts say nothing a newcomer did not cause, and
hide nothing from a developer who asks for debug output (autograder/quiet.py).

A real Jupyter server, with the settings ``course.py lab`` and the hub give it (hub/etc/jupyter), in a
copy of the course: a kernel is started and runs code over its websocket (the kernel start warned about
TCP without encryption, the websocket about tornado's ping settings), and the formgrader's *Manage
Assignments* opens (it warned that its config is not serializable).  Then ``nbgrader validate``, which
starts a kernel of its own."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
import uuid

import pytest
import zmq
from tornado.websocket import websocket_connect

from tests.course_copy import ROOT, make_course

# course.py, the script people run, at the repository root
_spec = importlib.util.spec_from_file_location("course_script", os.path.join(ROOT, "course.py"))
course = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(course)

TCP = "Kernel is running over TCP without encryption"
WEBSOCKET = "cannot be longer than the websocket_ping_interval"
FORMGRADER = "Formgrader config is not serializable"
TOKEN = uuid.uuid4().hex
JUPYTER = os.path.join(ROOT, ".venv", "bin", "jupyter")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port: int, path: str) -> tuple[int, str]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, response.read().decode()


def post(port: int, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body or {}).encode(),
                                     headers={"Authorization": f"token {TOKEN}"}, method="POST")  # fmt: skip
    with urllib.request.urlopen(request, timeout=60) as response:
        text = response.read().decode()
    return json.loads(text) if text else {}


async def run_code(port: int, kernel_id: str, code: str) -> str:
    """What ``code`` prints, run by the kernel over the browser's websocket."""
    url = f"ws://127.0.0.1:{port}/api/kernels/{kernel_id}/channels?token={TOKEN}"
    connection = await websocket_connect(url)
    msg_id = uuid.uuid4().hex
    header = {"msg_id": msg_id, "msg_type": "execute_request", "username": "test", "session": uuid.uuid4().hex,
              "version": "5.3", "date": ""}  # fmt: skip
    content = {"code": code, "silent": False, "store_history": False, "user_expressions": {}, "allow_stdin": False}
    message = {"header": header, "parent_header": {}, "metadata": {}, "content": content, "channel": "shell"}
    await connection.write_message(json.dumps(message))
    printed = ""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        reply = json.loads(await asyncio.wait_for(connection.read_message(), 120))
        if reply.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        if reply["msg_type"] == "stream":
            printed += reply["content"]["text"]
        if reply["msg_type"] == "status" and reply["content"]["execution_state"] == "idle":
            break
    connection.close()
    # until the server's close frame ends the connection (read_message gives None): a socket still open when
    # asyncio.run closes the loop is reported "unclosed" whenever the garbage collector finds it, in any test
    while await asyncio.wait_for(connection.read_message(), 30) is not None:
        pass
    return printed


def serve(folder: str, *flags: str) -> tuple[str, bytes]:
    """Start JupyterLab as ``course.py lab --instructor`` does, use it as a newcomer would, stop it: its stderr, and
    what a listener on the kernel's output port overheard."""
    port = free_port()
    exchange = os.path.join(folder, ".exchange")  # made as docs/instructor.md makes the course's
    subprocess.run(["install", "-d", "-m", "1777", exchange], check=True)
    settings = {"JUPYTER_RUNTIME_DIR": os.path.join(folder, ".runtime"), "AUTOGRADER_EXCHANGE": exchange}
    environment = course.lab_environment({**os.environ, **settings}, instructor=True)  # the formgrader too
    environment.pop("JUPYTER_CONFIG_DIR", None)
    command = [JUPYTER, "lab", "--no-browser", f"--port={port}", f"--IdentityProvider.token={TOKEN}",
               *course.root_flags(), *flags]  # fmt: skip
    log = open(os.path.join(folder, f"server-{port}.log"), "w+")  # a file: --debug fills a pipe and stalls
    server = subprocess.Popen(command, cwd=folder, env=environment, stdout=subprocess.DEVNULL, stderr=log)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                get(port, "/api/status")
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.3)
        kernel = post(port, "/api/kernels", {"name": "python3"})
        with open(os.path.join(folder, ".runtime", f"kernel-{kernel['id']}.json")) as f:
            connection = json.load(f)
        # another account on the machine listens to the kernel's output port, as any local user can reach
        # 127.0.0.1: over plain TCP it reads every output; with the kernel's CurveZMQ keys it reads nothing
        context = zmq.Context()
        eavesdropper = context.socket(zmq.SUB)
        eavesdropper.setsockopt(zmq.SUBSCRIBE, b"")
        eavesdropper.connect(f"tcp://{connection['ip']}:{connection['iopub_port']}")
        time.sleep(1)  # a subscriber hears only what is published after its subscription arrived
        assert asyncio.run(run_code(port, kernel["id"], "print(6 * 7)")).strip() == "42"
        overheard = b""  # every frame that came, until none comes for a second: a message is ~7 frames, and
        frames = 0  # the websocket's kernel_info requests put status messages before the code's output
        while frames < 10_000 and eavesdropper.poll(1000):
            overheard += eavesdropper.recv()
            frames += 1
        eavesdropper.close(linger=0)
        context.term()
        status, page = get(port, "/formgrader/manage_assignments")
        # the formgrader outside a hub, started in the course folder, finds the course's exchange
        assert status == 200 and "Add new assignment" in page and 'id="warning-exchange"' not in page
        post(port, f"/api/kernels/{kernel['id']}/restart")  # a kernel's second start is quiet as well
        assert asyncio.run(run_code(port, kernel["id"], "print('again')")).strip() == "again"
        post(port, "/api/shutdown")
        server.wait(timeout=60)
        log.seek(0)
        return log.read(), overheard
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        log.close()


@pytest.fixture(scope="module")
def course_folder(tmp_path_factory) -> str:
    folder = make_course(str(tmp_path_factory.mktemp("quiet") / "course"))
    shutil.copytree(os.path.join(ROOT, "release"), os.path.join(folder, "release"))
    return folder


def test_a_course_server_starts_kernels_opens_websockets_and_the_formgrader_without_warnings(course_folder):
    log, overheard = serve(course_folder)
    assert TCP not in log and WEBSOCKET not in log and FORMGRADER not in log, log[-4000:]
    assert "Exception while loading config file" not in log, log[-4000:]
    assert "Kernel started" in log  # the log is the server's, not an empty one
    assert overheard == b""  # the kernel's sockets are encrypted: a classmate's listener hears nothing


def test_over_plain_tcp_a_listener_hears_the_kernel_and_the_server_says_so(course_folder):
    """What the encryption stops, shown: the listener above is a real one."""
    plain = ("--KernelManager.transport_encryption=disabled", "--MappingKernelManager.transport_encryption=disabled")
    log, overheard = serve(course_folder, *plain)
    assert b"42" in overheard and TCP in log


def test_with_debug_asked_for_the_server_hides_nothing(course_folder):
    log, _ = serve(course_folder, "--debug")
    assert WEBSOCKET in log and FORMGRADER in log, log[-4000:]


def test_nbgrader_validate_starts_its_kernel_without_the_tcp_warning(course_folder):
    notebook = os.path.join(course_folder, "release", "lesson1_requires_grad", "lesson1_requires_grad.ipynb")
    done = subprocess.run([os.path.join(ROOT, ".venv", "bin", "nbgrader"), "validate", notebook],
                          cwd=course_folder, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert "Exception while loading config file" not in done.stderr, done.stderr[-3000:]  # the course's settings
    assert "error was" in done.stdout  # it ran the notebook's checks: an unanswered lesson fails them
    assert TCP not in done.stdout + done.stderr
