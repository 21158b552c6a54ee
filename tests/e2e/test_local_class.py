"""A class on one machine, as docs/instructor.md's "A class on one machine" gives it, for real.

Two throwaway student accounts fetch and submit through the exchange the course's nbgrader_config.py
names (here one of the test's own, by AUTOGRADER_EXCHANGE, as the guide allows), with the course's
settings for everyone (hub/etc/jupyter, by JUPYTER_CONFIG_PATH); the instructor (root) releases and
collects from a copy of the course.  Each student's submission comes back under their own name, and
nbgrader's own default exchange is never used."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile

import pytest

from tests.course_copy import ROOT, make_course, nbgrader

A = "lesson1_requires_grad"
STUDENTS = ("q35stu1", "q35stu2")  # throwaway accounts of this test only, removed after it
VENV_BIN = os.path.join(ROOT, ".venv", "bin")
RUNUSER = shutil.which("runuser") or "/usr/sbin/runuser"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="makes student accounts: root")


@pytest.fixture(scope="module")
def students():
    made = []
    for name in STUDENTS:
        try:
            pwd.getpwnam(name)
        except KeyError:
            subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", name], check=True)
            made.append(name)
    yield STUDENTS
    for name in made:
        subprocess.run(["userdel", "--remove", name], capture_output=True)


@pytest.fixture
def exchange():
    """An exchange made as the guide makes /srv/nbgrader/exchange, in a folder students can reach."""
    top = tempfile.mkdtemp(prefix="q35-exchange-")
    os.chmod(top, 0o755)
    root = os.path.join(top, "exchange")
    subprocess.run(["install", "-d", "-m", "1777", root], check=True)
    yield root
    shutil.rmtree(top)


@pytest.fixture
def instructor_course(tmp_path):
    course = make_course(str(tmp_path / "course"))
    shutil.copytree(os.path.join(ROOT, "release", A), os.path.join(course, "release", A))
    return course


def as_student(name: str, exchange: str, *args: str) -> subprocess.CompletedProcess:
    home = pwd.getpwnam(name).pw_dir
    environment = {
        "HOME": home,
        "PATH": f"{VENV_BIN}:/usr/bin:/bin",
        "JUPYTER_CONFIG_PATH": os.pathsep.join(
            [os.path.join(ROOT, "hub", "etc", "student"), os.path.join(ROOT, "hub", "etc", "jupyter")]
        ),  # fmt: skip
        "AUTOGRADER_EXCHANGE": exchange,
    }
    done = subprocess.run([RUNUSER, "-u", name, "--", "nbgrader", *args], cwd=home, env=environment,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, f"{name}: nbgrader {' '.join(args)}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done


def test_two_students_fetch_and_submit_and_the_instructor_collects_both(students, exchange, instructor_course,
                                                                       monkeypatch):  # fmt: skip
    monkeypatch.setenv("AUTOGRADER_EXCHANGE", exchange)
    nbgrader(instructor_course, "release_assignment", A)
    assert os.path.isfile(os.path.join(exchange, "autograd-course", "outbound", A, f"{A}.ipynb"))

    for name in students:
        as_student(name, exchange, "fetch_assignment", A)
        fetched = os.path.join(pwd.getpwnam(name).pw_dir, A, f"{A}.ipynb")
        assert os.stat(fetched).st_uid == pwd.getpwnam(name).pw_uid
        as_student(name, exchange, "submit", A)
    # a student's validate, in their own folder (no course nbgrader_config.py there): encrypted kernel sockets
    checked = as_student(
        students[0], exchange, "validate", os.path.join(pwd.getpwnam(students[0]).pw_dir, A, f"{A}.ipynb")
    )
    assert "error was" in checked.stdout  # it ran the notebook's checks: an unanswered lesson fails them
    assert "without encryption" not in checked.stdout + checked.stderr

    inbound = os.path.join(exchange, "autograd-course", "inbound")
    assert sorted(folder.split("+")[0] for folder in os.listdir(inbound)) == sorted(students)
    # a student cannot list the inbound folder, so cannot find a classmate's submission (nbgrader's 733)
    peek = subprocess.run([RUNUSER, "-u", students[1], "--", "ls", inbound], capture_output=True, text=True)
    assert peek.returncode != 0 and peek.stdout == ""

    collected = nbgrader(instructor_course, "collect", A)
    for name in students:
        assert os.path.isfile(os.path.join(instructor_course, "submitted", name, A, f"{A}.ipynb")), collected.stderr
    assert "refused" not in collected.stderr.lower()
