"""A student who makes the grader's shared places first gains nothing and stops nothing.

Where grading runs as root on a machine students have shells on, the user-id locks of sandboxed
jobs used to live in /run/lock/autograder-uids, made only if missing and accepted as found: a
student who made it first could hold every id's lock or remove them.  Here a fresh /run (a tmpfs in
a mount namespace of the test's own, so the machine's is untouched) gets that folder made by a
student, and `python -m autograder diagnose` still grades, with its locks in a folder only root
could make."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys

import pytest

from tests.conftest import requires_bwrap

STUDENT = "autograder-ann"
CORRECT = """
def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
"""

pytestmark = [
    requires_bwrap,
    pytest.mark.skipif(os.geteuid() != 0, reason="makes a mount namespace and gives a folder to a student: root"),
    pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare (util-linux)"),
]


@pytest.fixture(scope="module")
def student() -> str:
    try:
        pwd.getpwnam(STUDENT)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", STUDENT],
                       capture_output=True)  # fmt: skip
    return STUDENT


def test_a_uid_lock_folder_made_first_by_a_student_is_not_used_and_grading_works(tmp_path, student):
    source = tmp_path / "train_step.py"
    source.write_text(CORRECT)
    script = (
        "set -e; mount -t tmpfs -o mode=0755 tmpfs /run; mkdir -m 1777 /run/lock; "
        f"mkdir -m 0777 /run/lock/autograder-uids; chown {student} /run/lock/autograder-uids; "
        f"{sys.executable} -m autograder diagnose train_step {source}; "
        "stat -c '%U %a %n' /run/autograder-uids; ls -A /run/lock/autograder-uids | wc -l"
    )
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    verdict, locks, left_in_theirs = done.stdout.strip().splitlines()
    assert '"passed": true' in verdict and '"code": "ok"' in verdict
    assert locks == "root 700 /run/autograder-uids"  # root's own folder, in a place only root can write
    assert left_in_theirs == "0"  # nothing of the grader's in the student's folder
