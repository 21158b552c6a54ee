"""Each student's limits, held by this machine's kernel: hub/cgroup_spawner.py's groups stop a process
that takes too much memory, slow one that spins, and refuse a fork bomb, while a process outside the
group goes on.  (A whole hub with a runaway student among others: test_class_arrives.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid

import pytest

from tests.conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "hub"))
from cgroup_spawner import Cgroups, join  # noqa: E402

pytestmark = [pytest.mark.hub]

ALLOCATE = "import time\nblocks = []\nfor _ in range(64):\n    blocks.append(bytearray(32 * 2**20))\nprint('all')"
SPIN = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass"


@pytest.fixture
def group():
    if os.geteuid() != 0:
        pytest.skip("making cgroups needs root")
    made = Cgroups(parent=f"autograder-test-{uuid.uuid4().hex[:8]}").group("student1")
    yield made
    made.empty_and_remove()
    for folder in made.folders.values():
        try:
            os.rmdir(os.path.dirname(folder))
        except OSError:
            pass


def run_in(group, code: str, timeout: float = 60) -> subprocess.CompletedProcess:
    files = group.procs_files()
    return subprocess.run([sys.executable, "-c", code], preexec_fn=lambda: join(files), capture_output=True,
                          text=True, timeout=timeout)  # fmt: skip


def test_a_process_that_takes_more_memory_than_its_student_may_is_killed(group):
    group.make(256 * 2**20, None, 0)
    inside = run_in(group, ALLOCATE)
    assert inside.returncode == -9 and "all" not in inside.stdout  # the kernel's OOM killer, in this group only
    outside = subprocess.run([sys.executable, "-c", ALLOCATE], capture_output=True, text=True, timeout=60)
    assert outside.returncode == 0 and "all" in outside.stdout


def test_a_spinning_process_gets_no_more_than_its_share_of_a_core(group):
    group.make(None, 0.25, 0)
    before = os.times()  # children's CPU time so far (earlier tests' processes count there too)
    started = time.monotonic()
    files = group.procs_files()
    process = subprocess.Popen([sys.executable, "-c", SPIN.format(seconds=3)], preexec_fn=lambda: join(files))
    _, status = os.waitpid(process.pid, 0)
    after, wall = os.times(), time.monotonic() - started
    assert status == 0
    used = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    assert wall >= 3 and used <= 0.25 * wall * 1.3 + 0.2, (used, wall)


def test_a_fork_bomb_stops_at_the_task_limit(group):
    group.make(None, None, 30)
    bomb = ("import threading, time\nstarted = 0\ntry:\n    for _ in range(200):\n"
            "        threading.Thread(target=time.sleep, args=(5,), daemon=True).start()\n        started += 1\n"
            "except RuntimeError:\n    pass\nprint(started)")  # fmt: skip
    done = run_in(group, bomb)
    assert done.returncode == 0 and 0 < int(done.stdout) < 30, done.stdout + done.stderr


def test_a_stopped_students_leftovers_are_killed_and_the_group_removed(group):
    group.make(None, None, 0)
    files = group.procs_files()
    left = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], preexec_fn=lambda: join(files))
    assert left.pid in group.pids()
    group.empty_and_remove()
    assert left.wait(timeout=10) == -9
    assert not any(os.path.exists(folder) for folder in group.folders.values())
