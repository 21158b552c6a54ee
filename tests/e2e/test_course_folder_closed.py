"""A course folder installed by hub/install.py stays closed to students through real grading runs
under the loosest umask, by the grader account and by root, and the grader account cannot change
what students' servers run.

One class of two students (ann and bob, both with the instructor's answers) on lesson 1, with
accounts made for the test: the grader account releases and grades it with plain
``nbgrader autograde`` and makes the feedback, all under umask 000; root exports every grade to a
file at the top under umask 000, as a root shell or a cron job would.  The gradebook is SQLite, in .autograder/ (the top
of the course folder is root's: AUTOGRADER_DB_URL names it there, as docs/instructor.md says).
Then each claim is checked by what the accounts can and cannot do."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from tests.conftest import ROOT, requires_bwrap
from tests.course_copy import answered, copy_working_tree, read, solutions, write

pytestmark = [
    requires_bwrap,
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="makes accounts and grades as them: needs root"),
]
GRADER, TEACHER, STUDENT = "autograder-gr", "autograder-teach", "autograder-ann"
GROUP = "autograder-staff-closed"
LESSON = "lesson1_requires_grad"
STUDENTS = ("autograder-ann", "bob")
BIN = os.path.dirname(sys.executable)


def account(name: str) -> None:
    if subprocess.run(["id", name], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                       capture_output=True)  # fmt: skip


def as_user(user: str, *command: str, umask: str = "022", **env: str) -> subprocess.CompletedProcess:
    """``command`` as ``user`` under ``umask``, with the environment's programs first on PATH."""
    settings = [f"PATH={BIN}:/usr/bin:/bin", *(f"{k}={v}" for k, v in env.items())]
    shell = ["sh", "-c", f'umask {umask} && exec "$@"', "sh"]
    runner = ["runuser", "-u", user, "--"] if user != "root" else []
    return subprocess.run([*runner, "env", *settings, *shell, *command], capture_output=True, text=True,
                          timeout=900)  # fmt: skip


def reads(user: str, path: str) -> bool:
    return as_user(user, "sh", "-c", 'cat "$1" > /dev/null', "sh", path).returncode == 0


@pytest.fixture(scope="module")
def graded():
    """The installed course after the grading runs; the environment the grader's commands had."""
    for name in (GRADER, TEACHER, STUDENT):
        account(name)
    subprocess.run(["groupdel", GROUP], capture_output=True)
    base = tempfile.mkdtemp(prefix="autograd-closed-", dir="/var/tmp")
    os.chmod(base, 0o755)
    course = copy_working_tree(os.path.join(base, "course"), untracked=True)
    with open(os.path.join(base, "roster.toml"), "w") as f:
        f.write(f'instructors = ["{TEACHER}"]\ntas = []\nstudents = ["{STUDENT}"]\n')
    home = os.path.join(base, "grader-home")
    os.makedirs(home)
    shutil.chown(home, GRADER)
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "hub", "install.py"), "--course", course, "--grader", GRADER,
         "--instructors-group", GROUP, "--roster", os.path.join(base, "roster.toml"),
         "--exchange", os.path.join(base, "exchange")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    env = {"HOME": home, "AUTOGRADER_DB_URL": f"sqlite:///{course}/.autograder/gradebook.db"}
    ok(as_user(GRADER, "sh", "-c", f'cd "{course}" && nbgrader generate_assignment {LESSON} --force', umask="000",
               **env))  # fmt: skip
    source = read(os.path.join(course, "notebooks", LESSON, f"{LESSON}.ipynb"))
    release = read(os.path.join(course, "release", LESSON, f"{LESSON}.ipynb"))
    for student in STUDENTS:  # as a collect under umask 000 would leave them
        folder = os.path.join(course, "submitted", student, LESSON)
        previous = os.umask(0o000)
        try:
            write(os.path.join(folder, f"{LESSON}.ipynb"), answered(release, solutions(source)))
        finally:
            os.umask(previous)
        subprocess.run(["chown", "-R", GRADER, os.path.join(course, "submitted", student)], check=True)
    ok(as_user(GRADER, "chmod", "755", os.path.join(course, "reports")))  # opened by hand: autograde closes it
    graded_as = ok(as_user(GRADER, "sh", "-c", f'cd "{course}" && nbgrader autograde {LESSON}', umask="000", **env))
    ok(as_user(GRADER, "sh", "-c", f'cd "{course}" && nbgrader generate_feedback {LESSON}', umask="000", **env))
    # Root grades nothing in a folder the grader account can write (.autograder/ refuses it); what a
    # root shell or a cron job does there is export: every student's grades, at the top.
    ok(as_user("root", "sh", "-c", f'cd "{course}" && nbgrader export --to grades-by-root.csv', umask="000", **env))
    yield course, env, graded_as.stdout + graded_as.stderr
    shutil.rmtree(base, ignore_errors=True)
    subprocess.run(["groupdel", GROUP], capture_output=True)


def ok(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def test_both_students_keep_full_marks(graded):
    from nbgrader.api import Gradebook

    course, env, _ = graded
    with Gradebook(env["AUTOGRADER_DB_URL"], "autograd-course") as gb:
        for student in STUDENTS:
            submission = gb.find_submission(LESSON, student)
            assert submission.max_score > 0 and submission.score == submission.max_score, student


def test_a_student_reads_nothing_grading_wrote(graded):
    course, _, _ = graded
    written = []
    for top in ("submitted", "autograded", "feedback", ".autograder"):
        for folder, _, files in os.walk(os.path.join(course, top)):
            written += [os.path.join(folder, name) for name in files]
    assert os.path.join(course, ".autograder", "gradebook.db") in written
    assert any(path.startswith(os.path.join(course, "feedback", STUDENT)) for path in written)
    assert any(path.startswith(os.path.join(course, "submitted", "bob")) for path in written)
    readable = [path for path in written if reads(STUDENT, path)]
    assert readable == []
    assert not reads(STUDENT, os.path.join(course, "grades-by-root.csv"))
    assert as_user(STUDENT, "ls", course).returncode != 0


def test_a_student_still_reads_what_their_server_runs(graded):
    course, _, _ = graded
    for path in ("hub/etc/jupyter/nbgrader_config.py", "autograder/checks.py", "gradlessons/__init__.py"):
        assert reads(STUDENT, os.path.join(course, path)), path


def test_the_grader_cannot_change_what_students_servers_run(graded):
    course, _, _ = graded
    site = os.path.dirname(os.path.dirname(os.__file__))
    for path in ("hub/etc/jupyter/nbgrader_config.py", "autograder/checks.py", "gradlessons/__init__.py"):
        assert as_user(GRADER, "sh", "-c", 'echo "#" >> "$1"', "sh", os.path.join(course, path)).returncode != 0
    assert as_user(GRADER, "mv", os.path.join(course, "hub", "etc"), os.path.join(course, "hub", "x")).returncode
    assert as_user(GRADER, "touch", os.path.join(site, "autograder-closed-probe")).returncode != 0


def test_plain_autograde_closes_what_the_grader_opened_and_says_so(graded):
    course, _, output = graded
    assert f"autograder: closed reports in {course} to other accounts: it was drwxr-sr-x, now drwxr-s---" in output
    assert os.stat(os.path.join(course, "reports")).st_mode & 0o007 == 0


def test_the_install_check_finds_nothing_open_after_grading(graded):
    course, _, _ = graded
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "hub", "install.py"), "--check", "--course", course, "--grader", GRADER,
         "--instructors-group", GROUP, "--roster", os.path.join(os.path.dirname(course), "roster.toml"),
         "--exchange", os.path.join(os.path.dirname(course), "exchange")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_grade_closes_what_the_grader_opened_and_says_so(graded):
    course, env, _ = graded
    os.chmod(os.path.join(course, ".autograder"), 0o755)  # a chmod by hand, or a tool's
    done = as_user(GRADER, sys.executable, "-m", "autograder", "grade", LESSON, "--course", course, "--student",
                   "bob", **env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"autograder: closed .autograder in {course} to other accounts: it was drwxr-xr-x" in done.stderr
    assert oct(os.stat(os.path.join(course, ".autograder")).st_mode & 0o777) == "0o750"


def test_grade_refuses_an_open_top_the_grader_cannot_close(graded):
    course, env, _ = graded
    config = os.path.join(course, "nbgrader_config.py")
    graded_copy = os.path.join(course, "autograded", "bob", LESSON, f"{LESSON}.ipynb")
    before = os.stat(graded_copy).st_mtime_ns
    os.chmod(config, 0o644)  # root's file, opened by a root shell
    try:
        done = as_user(GRADER, sys.executable, "-m", "autograder", "grade", LESSON, "--course", course, "--student",
                       "bob", "--force", **env)  # fmt: skip
    finally:
        os.chmod(config, 0o640)
    assert done.returncode != 0
    assert "nbgrader_config.py is open to every account (-rw-r--r--)" in done.stderr
    assert f"chmod o-rwx {config}" in done.stderr
    assert os.stat(graded_copy).st_mtime_ns == before  # nothing was graded
