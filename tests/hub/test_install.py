"""hub/install.py closes the course folder to every account but the grader's and the instructors'
group, keeps what students' servers read readable and out of the grader account's reach, and
changes nothing when something is missing.

No hub here: a copy of the course in a folder every account can pass through, and accounts made
for the test with useradd (a grader, an instructor, a student)."""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile

import pytest

from tests.conftest import ROOT
from tests.course_copy import copy_working_tree

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="makes accounts and gives files to them: needs root")
GRADER, TEACHER, STUDENT = "autograder-gr", "autograder-teach", "autograder-ann"
GROUP = "autograder-staff-test"


@pytest.fixture(scope="module")
def accounts():
    for name in (GRADER, TEACHER, STUDENT):
        try:
            pwd.getpwnam(name)
        except KeyError:
            subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                           capture_output=True)  # fmt: skip
    yield
    subprocess.run(["groupdel", GROUP], capture_output=True)


@pytest.fixture
def course(accounts):
    """A course folder with a SQLite gradebook, a collected submission and a set-user-id file, as
    loose as a clone and an earlier nbgrader leave them."""
    subprocess.run(["groupdel", GROUP], capture_output=True)  # each test starts without the group
    base = tempfile.mkdtemp(prefix="autograd-install-", dir="/var/tmp")
    os.chmod(base, 0o755)
    course = copy_working_tree(os.path.join(base, "course"), untracked=True)
    os.makedirs(os.path.join(course, "submitted", STUDENT, "lesson1_requires_grad"))
    for name, mode in (("gradebook.db", 0o644), ("submitted/autograder-ann/lesson1_requires_grad/x.ipynb", 0o666)):
        with open(os.path.join(course, name), "w") as f:
            f.write("secret\n")
        os.chmod(os.path.join(course, name), mode)
    os.chmod(os.path.join(course, "submitted", STUDENT, "lesson1_requires_grad"), 0o777)
    os.chmod(os.path.join(course, ".ci", "run"), 0o4755)
    for name in ("jupyterhub.sqlite", "jupyterhub_cookie_secret"):  # the hub's state, kept in hub/
        with open(os.path.join(course, "hub", name), "w") as f:
            f.write("postgresql://autograd:password@127.0.0.1/autograd_course\n")
        os.chmod(os.path.join(course, "hub", name), 0o644)
    with open(os.path.join(base, "roster.toml"), "w") as f:
        f.write(f'instructors = ["{TEACHER}"]\ntas = []\nstudents = ["{STUDENT}"]\n')
    yield course
    shutil.rmtree(base, ignore_errors=True)


def install(course: str, *extra: str) -> subprocess.CompletedProcess:
    base = os.path.dirname(course)
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, "hub", "install.py"), "--course", course, "--grader", GRADER,
         "--instructors-group", GROUP, "--roster", os.path.join(base, "roster.toml"),
         "--exchange", os.path.join(base, "exchange"), *extra],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def as_user(user: str, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["runuser", "-u", user, "--", *command], capture_output=True, text=True, timeout=60)


def snapshot(course: str) -> dict[str, tuple[int, int, int]]:
    found = {}
    for folder, folders, files in os.walk(course):
        for name in [folder, *(os.path.join(folder, f) for f in folders + files)]:
            status = os.lstat(name)
            found[name] = (status.st_uid, status.st_gid, status.st_mode)
    return found


def test_course_for_instructors_only(course):
    done = install(course)
    assert done.returncode == 0, done.stderr
    assert f"instructors' group {GROUP}: made; added {TEACHER}" in done.stdout
    for path in ("gradebook.db", "notebooks/lesson1_requires_grad/lesson1_requires_grad.ipynb",
                 "submitted/autograder-ann/lesson1_requires_grad/x.ipynb", "hub/roster.toml"):  # fmt: skip
        assert as_user(STUDENT, "cat", os.path.join(course, path)).returncode != 0, path
        assert as_user(TEACHER, "cat", os.path.join(course, path)).returncode == 0, path
    for path in (".", "notebooks", "submitted", "autograded", "feedback", "reports", ".autograder", "release"):
        assert as_user(STUDENT, "ls", os.path.join(course, path)).returncode != 0, path
    for path in ("hub/etc/jupyter/nbgrader_config.py", "autograder/checks.py", "gradlessons/__init__.py"):
        assert as_user(STUDENT, "cat", os.path.join(course, path)).returncode == 0, path


def test_only_server_files_are_open(course):
    assert install(course).returncode == 0
    grader, group = pwd.getpwnam(GRADER).pw_uid, grp.getgrnam(GROUP).gr_gid
    graders = ("notebooks", "release", "submitted", "autograded", "feedback", "reports", ".autograder", "downloaded")
    for path, (uid, gid, mode) in snapshot(course).items():
        relative = os.path.relpath(path, course)
        if relative in ("hub/jupyterhub.sqlite", "hub/jupyterhub_cookie_secret"):
            continue  # the hub's own state: the next test
        owner = grader if relative.split("/")[0] in graders or relative == "gradebook.db" else 0
        assert (uid, gid) == (owner, group), relative
        if stat.S_ISLNK(mode):
            continue
        if relative.startswith(("hub/etc", "autograder", "gradebox", "gradexercises", "gradlessons")):
            assert mode & 0o004, relative
        elif relative in (".", "hub"):
            assert stat.S_IMODE(mode) == 0o2751, relative  # passed through, never listed
        else:
            assert stat.S_IMODE(mode) & 0o007 == 0, f"{relative} is {oct(stat.S_IMODE(mode))}"
    assert stat.S_IMODE(os.stat(os.path.join(course, ".ci", "run")).st_mode) == 0o750  # set-user-id gone


def test_hub_secrets_stay_roots_only(course):
    assert install(course).returncode == 0
    for name in ("jupyterhub.sqlite", "jupyterhub_cookie_secret"):
        path = os.path.join(course, "hub", name)
        status = os.stat(path)
        assert (status.st_uid, stat.S_IMODE(status.st_mode)) == (0, 0o600)
        for user in (STUDENT, TEACHER, GRADER):
            assert as_user(user, "cat", path).returncode != 0, user


def test_students_only_add_to_inbound(course):
    assert install(course).returncode == 0
    exchange = os.path.join(os.path.dirname(course), "exchange", "autograd-course")
    grader = pwd.getpwnam(GRADER).pw_uid
    modes = {name: os.stat(os.path.join(exchange, name)) for name in (".", "inbound", "outbound", "feedback")}
    assert {name: (s.st_uid, stat.S_IMODE(s.st_mode)) for name, s in modes.items()} == {
        ".": (grader, 0o755),
        "inbound": (grader, 0o1733),
        "outbound": (grader, 0o755),
        "feedback": (grader, 0o711),
    }
    inbound = os.path.join(exchange, "inbound")
    assert as_user(STUDENT, "mkdir", os.path.join(inbound, "mine")).returncode == 0
    assert as_user(STUDENT, "ls", inbound).returncode != 0
    os.makedirs(os.path.join(inbound, "someone-elses"))
    assert as_user(STUDENT, "mv", os.path.join(inbound, "someone-elses"), os.path.join(inbound, "x")).returncode != 0


def test_student_owned_exchange_stops(course):
    exchange = os.path.join(os.path.dirname(course), "exchange")
    os.makedirs(os.path.join(exchange, "autograd-course"))
    os.chown(os.path.join(exchange, "autograd-course"), pwd.getpwnam(STUDENT).pw_uid, -1)
    before = snapshot(course)
    done = install(course)
    assert done.returncode == 2 and "autograd-course exists and is not a folder of" in done.stderr
    assert snapshot(course) == before


def test_link_targets_are_left_alone(course):
    outside = os.path.join(os.path.dirname(course), "outside")
    os.makedirs(outside)
    with open(os.path.join(outside, "file"), "w") as f:
        f.write("not the course's\n")
    os.chmod(os.path.join(outside, "file"), 0o644)
    os.symlink(os.path.join(outside, "file"), os.path.join(course, "reports-link"))
    os.symlink(outside, os.path.join(course, "notebooks", "folder-link"))
    assert install(course).returncode == 0
    for path in (outside, os.path.join(outside, "file")):
        status = os.stat(path)
        assert (status.st_uid, status.st_gid) == (0, 0) and stat.S_IMODE(status.st_mode) in (0o644, 0o755), path
    assert os.lstat(os.path.join(course, "reports-link")).st_uid == 0  # at the top: root's
    assert os.lstat(os.path.join(course, "notebooks", "folder-link")).st_uid == pwd.getpwnam(GRADER).pw_uid


def test_student_in_instructors_stops(course):
    subprocess.run(["groupadd", GROUP], check=True)
    subprocess.run(["gpasswd", "-a", STUDENT, GROUP], check=True, capture_output=True)
    before = snapshot(course)
    done = install(course)
    assert done.returncode == 2 and STUDENT in done.stderr and "open the course folder to them" in done.stderr
    assert snapshot(course) == before


def test_no_grader_changes_nothing(course):
    before = snapshot(course)
    done = install(course, "--grader", "no-such-grader")
    assert done.returncode == 2 and "there is no account 'no-such-grader'" in done.stderr
    assert snapshot(course) == before
    with pytest.raises(KeyError):
        grp.getgrnam(GROUP)  # not made either


def test_grader_cannot_change_what_servers_or_root_run(course):
    assert install(course).returncode == 0
    assert GRADER in grp.getgrnam(GROUP).gr_mem  # it reads root's nbgrader_config.py through the group
    assert as_user(GRADER, "cat", os.path.join(course, "nbgrader_config.py")).returncode == 0
    for command in (
        ["touch", "hub/etc/jupyter/nbgrader_config.py"],
        ["touch", "autograder/checks.py"],
        ["touch", "gradlessons/new.py"],
        ["mv", "hub/etc", "hub/etc-old"],  # then a folder of its own in its place
        ["mv", "autograder", "autograder-old"],
        ["mv", "hub", "hub-old"],
        ["touch", "hub/jupyterhub_config.py"],  # root runs the hub from it
        ["touch", "torch.py"],  # a module root's `python -m` would import from here
        ["touch", "nbgrader_config.py"],
    ):
        done = as_user(GRADER, "sh", "-c", f'cd "{course}" && {" ".join(command)}')
        assert done.returncode != 0, command
    site = os.path.dirname(os.path.dirname(os.__file__))  # the environment every server runs
    assert as_user(GRADER, "touch", os.path.join(site, "autograder-h7-probe")).returncode != 0
    for folder in ("submitted", "autograded", ".autograder", "notebooks/lesson1_requires_grad"):  # its work goes on
        assert as_user(GRADER, "touch", os.path.join(course, folder, "probe")).returncode == 0, folder


def test_files_root_makes_at_the_top_later_start_closed(course):
    """The finding: a SQLite gradebook.db a root shell made at the top under umask 022 was readable
    by name by every student."""
    assert install(course).returncode == 0
    previous = os.umask(0o000)
    try:
        import sqlite3

        with sqlite3.connect(os.path.join(course, "root-made.db")) as db:
            db.execute("CREATE TABLE grade (student TEXT, score REAL)")
        os.makedirs(os.path.join(course, "exports", "lesson1"))
        with open(os.path.join(course, "exports", "lesson1", "grades.csv"), "w") as f:
            f.write("student,score\n")
    finally:
        os.umask(previous)
    for path in ("root-made.db", "exports/lesson1/grades.csv"):
        read = ["sh", "-c", 'cat "$1" > /dev/null', "sh", os.path.join(course, path)]
        assert as_user(STUDENT, *read).returncode != 0, path
        assert as_user(TEACHER, *read).returncode == 0, path
    assert stat.S_IMODE(os.stat(os.path.join(course, "root-made.db")).st_mode) & 0o007 == 0


def test_check_passes_after_install_and_names_what_was_opened(course):
    assert install(course).returncode == 0
    done = install(course, "--check")
    assert done.returncode == 0 and "closed to other accounts" in done.stdout, done.stderr
    os.chmod(os.path.join(course, "gradebook.db"), 0o644)
    os.chmod(os.path.join(course, "gradlessons", "__init__.py"), 0o666)
    os.chown(os.path.join(course, "hub", "etc", "jupyter"), pwd.getpwnam(GRADER).pw_uid, -1)
    before = snapshot(course)
    done = install(course, "--check")
    assert done.returncode == 2
    assert "gradebook.db is open to every account (-rw-r--r--)" in done.stderr
    assert f"{course}/gradlessons/__init__.py could be changed by the grader account" in done.stderr
    assert f"{course}/hub/etc/jupyter could be changed by the grader account" in done.stderr
    assert snapshot(course) == before
    assert install(course).returncode == 0 and install(course, "--check").returncode == 0


def test_a_course_in_a_folder_the_grader_may_write_stops(course):
    base = os.path.dirname(course)
    os.chown(base, pwd.getpwnam(GRADER).pw_uid, -1)  # it could move the course folder away and put its own
    before = snapshot(course)
    done = install(course)
    assert done.returncode == 2 and f"{base} could be changed by the grader account" in done.stderr
    assert snapshot(course) == before
