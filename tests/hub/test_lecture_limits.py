"""A lecture on a hub with limits (hub/capacity.py): the instructor starts the class's servers before it
(hub/prestart.py, from the grading server's own environment, past a spawn limit of one); a student's
runaway kernel, filling memory and then spinning on every core, is stopped by their own limits while a
classmate keeps working; a server nobody uses is stopped by the idle culler, leaving nothing of its
student running; and a student who logs in while the only start slot is taken reads, in Chromium,
that the class is starting, and reaches JupyterLab without a click.  The kernel's side of the limits
alone: test_student_limits.py."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import psutil
import pytest
import requests

from tests.browser.lab import screenshot
from tests.hub.conftest import COURSE_ID, GRADER, INSTRUCTOR1, make_accounts, own, remove_accounts, running_hub
from tests.hub.load import StepFailed, Student

pytestmark = [pytest.mark.hub, pytest.mark.slow]
MEMORY_MB, CORES, IDLE = 700, 0.5, 40
HELD = own("lecture03")  # whose start the hub holds for a while: a start that keeps the only slot busy
# The hub asks the servers and the proxy for activity every few seconds, so that the culler sees who
# works (a lecture's hub does it every five minutes, against an hour of idleness); HELD's start waits
# 12 s before it begins, as a slow start on a busy machine would.
OVERLAY = f"""
import asyncio

c.JupyterHub.last_activity_interval = 5
c.Spawner.environment["JUPYTERHUB_ACTIVITY_INTERVAL"] = "5"
course_hook = c.Spawner.pre_spawn_hook


async def held_hook(spawner):
    course_hook(spawner)
    if spawner.user.name == "{HELD}":
        await asyncio.sleep(12)


c.Spawner.pre_spawn_hook = held_hook
"""
FILL_MEMORY = "blocks = []\nfor _ in range(64):\n    blocks.append(bytearray(32 * 2**20))\nprint('filled')"
SPIN = (
    "import subprocess, sys\n"
    "spinners = [subprocess.Popen([sys.executable, '-c', 'while True: pass']) for _ in range(3)]\n"
    "print('spinning')"
)
WORK = "print(sum(i * i for i in range(300_000)))"


@pytest.fixture(scope="module")
def lecture(postgres, accounts):
    students = make_accounts("lecture", 3, accounts)
    roster = {"instructors": [INSTRUCTOR1], "tas": [], "students": students}
    settings = {"AUTOGRADER_SPAWN_LIMIT": "1", "AUTOGRADER_MEM_LIMIT": f"{MEMORY_MB}M",
                "AUTOGRADER_CPU_LIMIT": str(CORES), "AUTOGRADER_CULL_IDLE": str(IDLE),
                "AUTOGRADER_CULL_EVERY": "5"}  # fmt: skip
    try:
        with running_hub(postgres, accounts, "lecture_limits", "lecture-limits-hub.log", roster=roster,
                         overlay=OVERLAY, **settings) as hub:  # fmt: skip
            yield hub, students
    finally:
        remove_accounts(students)


def grading_server_environment(hub) -> dict[str, str]:
    """What a terminal of the course's grading server has: the service's own environment."""
    for process in psutil.Process(hub.process.pid).children(recursive=True):
        try:
            if process.username() == GRADER and "jupyterhub-singleuser" in " ".join(process.cmdline()):
                return process.environ()
        except psutil.Error:
            continue
    raise AssertionError(f"no grading server runs:\n{hub.log()}")


def servers_of(name: str) -> list[psutil.Process]:
    """The student's running server (a zombie runs nothing: the hub reaps it when it next looks)."""
    return [p for p in psutil.process_iter(["username", "cmdline", "status"]) if p.info["username"] == name
            and "jupyterhub-singleuser" in " ".join(p.info["cmdline"] or [])
            and p.info["status"] != psutil.STATUS_ZOMBIE]  # fmt: skip


def kernels_of(name: str) -> list[int]:
    return [p.pid for p in psutil.process_iter(["username", "cmdline"]) if p.info["username"] == name
            and "ipykernel" in " ".join(p.info["cmdline"] or [])]  # fmt: skip


def test_the_instructor_starts_the_class_before_the_lecture_past_the_spawn_limit(lecture):
    hub, students = lecture
    environment = grading_server_environment(hub)
    environment["PATH"] = os.environ["PATH"]
    done = subprocess.run([sys.executable, os.path.join(hub.course, "hub", "prestart.py")], env=environment,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr + hub.log()
    assert f"{COURSE_ID}: 3 ready, 0 failed" in done.stdout
    assert all(servers_of(student) for student in students)
    assert "throttling" in hub.log(tail=200_000)  # the limit of one made it wait, and it waited


def test_a_runaway_kernel_is_stopped_by_its_limits_while_a_classmate_keeps_working(lecture):
    hub, students = lecture
    runaway, classmate = (Student(hub.url, name, hub.password, deadline=time.monotonic() + 240)
                          for name in students[:2])  # fmt: skip
    kernels = {}
    for student in (runaway, classmate):
        student.start(student.login())  # already running: prestarted
        started = student.request("POST", f"{student.server}/api/kernels", json={"name": "python3"})
        kernels[student.name] = started.json()["id"]
    server = servers_of(runaway.name)[0]
    first_kernel = kernels_of(runaway.name)

    # Memory: the runaway kernel is killed inside its own limit; its server lives on.
    filling = threading.Thread(target=lambda: _quietly(runaway, kernels[runaway.name], FILL_MEMORY), daemon=True)
    filling.start()
    for _ in range(120):
        if not set(first_kernel) & set(kernels_of(runaway.name)):
            break
        time.sleep(0.5)
    assert not set(first_kernel) & set(kernels_of(runaway.name)), "the kernel filling memory was not stopped"
    assert server.is_running()
    began = time.monotonic()
    assert execute(classmate, kernels[classmate.name], [WORK])[0].strip() == str(sum(i * i for i in range(300_000)))
    assert time.monotonic() - began < 10

    # CPU: three spinning processes of the runaway get half a core between them.
    execute(runaway, _fresh_kernel(runaway), [SPIN])
    spinners = [p for p in psutil.process_iter(["username", "cmdline"]) if p.info["username"] == runaway.name
                and "while True" in " ".join(p.info["cmdline"] or [])]  # fmt: skip
    assert len(spinners) == 3
    before = sum(sum(p.cpu_times()[:2]) for p in spinners)
    time.sleep(4)
    used = sum(sum(p.cpu_times()[:2]) for p in spinners) - before
    assert used <= CORES * 4 * 1.25, f"the spinners used {used:.2f} CPU-s in 4 s"
    began = time.monotonic()
    execute(classmate, kernels[classmate.name], [WORK])
    assert time.monotonic() - began < 10
    for spinner in spinners:
        spinner.kill()


def test_a_server_nobody_uses_is_culled_with_everything_its_student_ran(lecture):
    hub, students = lecture
    idle = students[2]  # prestarted, never used
    for _ in range(int(IDLE * 4)):
        if not servers_of(idle):
            break
        time.sleep(1)
    assert not servers_of(idle), "the idle server is still running"
    left = [p for p in psutil.process_iter(["username", "status"]) if p.info["username"] == idle
            and p.info["status"] != psutil.STATUS_ZOMBIE]  # fmt: skip
    assert not left  # (a zombie is the hub's to reap: it runs nothing)
    sys.path.insert(0, os.path.join(hub.course, "hub"))
    from cgroup_spawner import Cgroups

    folders = Cgroups().group(idle).folders.values()
    for _ in range(100):  # the hub removes the group once the server has stopped, a moment later
        if not any(os.path.exists(folder) for folder in folders):
            break
        time.sleep(0.2)
    assert not any(os.path.exists(folder) for folder in folders)


def test_a_student_over_the_limit_reads_that_the_class_is_starting_and_gets_in_by_itself(lecture, chromium):
    hub, students = lecture
    late = students[1]
    environment = grading_server_environment(hub)
    api, headers = environment["JUPYTERHUB_API_URL"], {"Authorization": f"token {environment['JUPYTERHUB_API_TOKEN']}"}
    requests.delete(f"{api}/users/{late}/server", headers=headers, timeout=60)
    for _ in range(100):
        if not servers_of(late):
            break
        time.sleep(0.2)
    # HELD's start takes the only slot for 12 s, and the late student logs in meanwhile.
    holding = threading.Thread(target=requests.post, args=(f"{api}/users/{HELD}/server",),
                               kwargs={"headers": headers, "timeout": 120}, daemon=True)  # fmt: skip
    holding.start()
    time.sleep(1)
    page = chromium.new_context(viewport={"width": 1366, "height": 768}).new_page()
    page.goto(f"{hub.url}/hub/login", timeout=60_000)
    page.fill("#username_input", late)
    page.fill("#password_input", hub.password)
    page.click("#login_submit")
    page.locator("#class-is-starting").wait_for(timeout=30_000)
    assert "This page tries again by itself" in page.locator("body").inner_text()
    screenshot(page, "hub-class-is-starting")
    page.wait_for_url(re.compile(rf".*/user/{late}/lab.*"), timeout=90_000)  # nothing clicked
    page.locator("#jp-main-dock-panel").wait_for(timeout=90_000)
    holding.join(timeout=120)


def execute(student: Student, kernel: str, code: list[str]) -> list[str]:
    """``code`` run in the kernel, from a thread of its own: the package's Chromium (Playwright's sync
    API) keeps an event loop running in the test's thread, where asyncio.run refuses to start one."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, student.execute(kernel, code)).result()


def _fresh_kernel(student: Student) -> str:
    started = student.request("POST", f"{student.server}/api/kernels", json={"name": "python3"})
    return started.json()["id"]


def _quietly(student: Student, kernel: str, code: str) -> None:
    try:
        asyncio.run(student.execute(kernel, [code]))  # already in a thread of its own
    except (StepFailed, OSError, asyncio.TimeoutError):
        pass  # the kernel dies under the code: no answer is the expected answer
