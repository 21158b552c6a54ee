"""The grading kernel is locked down like every job (no new privileges, no capabilities, its own
user), as root and as an unprivileged user, and a second clone of the course grades with its own
copy of the grader."""

import os
import shutil
import subprocess
import sys

import nbformat
import pytest

from tests.conftest import requires_bwrap
from tests.course_copy import answered, copy_working_tree, make_course, nbgrader, read, solutions, write

pytestmark = requires_bwrap
LESSON = "lesson3_zeroing_grad"

# An answer cell that reports what its kernel may do, then the right answer.
PROBE = """import os
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
try:
    group = open("/proc/self/autogroup").read().split()[-1]  # the group's nice
except OSError:
    group = "none"
import gradebox  # the job side: a grading kernel has nothing of autograder but its stand-ins
print("PROBE", os.getuid(), status["NoNewPrivs"].strip(), status["CapEff"].strip(), status["CapBnd"].strip(),
      os.getsid(0) == os.getpid(), group, gradebox.__file__)
"""


def autogroup_on() -> bool:
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
            return f.read().strip() == "1"
    except OSError:
        return False


def probed_class(course: str, owner: str | None = None) -> str:
    """One submission whose train_step answer cell starts with the probe; returns its graded path."""
    nbgrader(course, "generate_assignment", LESSON, "--force")  # a clone has release/ already
    source = read(os.path.join(course, "notebooks", LESSON, f"{LESSON}.ipynb"))
    release = read(os.path.join(course, "release", LESSON, f"{LESSON}.ipynb"))
    good = solutions(source)
    folder = os.path.join(course, "submitted", "ada", LESSON)
    write(
        os.path.join(folder, f"{LESSON}.ipynb"), answered(release, {**good, "train_step": PROBE + good["train_step"]})
    )
    if owner:
        subprocess.run(["chown", "-R", owner, course], check=True)
    return os.path.join(course, "autograded", "ada", LESSON, f"{LESSON}.ipynb")


def grade(course: str, user: str | None = None, cwd: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "autograder", "grade", LESSON, "--course", course]
    if user:
        command = ["runuser", "-u", user, "--", *command]
    done = subprocess.run(command, cwd=cwd or course, capture_output=True, text=True, timeout=900)
    print(done.stdout, done.stderr, sep="\n")  # pytest shows it when a test fails
    return done


def probe_line(graded: str) -> list[str]:
    nb = nbformat.read(graded, as_version=4)
    for cell in nb.cells:
        # One print can arrive as several stream outputs: the kernel flushes its buffer on a timer,
        # which under load can fall between the words print writes one by one.
        text = "".join(output.get("text", "") for output in cell.get("outputs", []))
        for line in text.splitlines():
            if line.startswith("PROBE "):
                return line.split()[1:]
    seen = [(cell.get("metadata", {}).get("nbgrader", {}).get("grade_id"), cell.get("outputs", []))
            for cell in nb.cells if cell.cell_type == "code"]  # fmt: skip
    raise AssertionError(f"the probe did not print; the graded cells and their outputs: {seen}")


def test_kernel_is_locked_down(tmp_path):
    course = make_course(str(tmp_path / "course"))
    graded = probed_class(course)
    done = grade(course)
    assert done.returncode == 0, done.stdout + done.stderr
    uid, nnp, capeff, capbnd, leader, group, _ = probe_line(graded)
    assert (nnp, capeff, capbnd) == ("1", "0" * 16, "0" * 16)
    if os.geteuid() == 0:
        assert int(uid) >= 61000
    # A session of its own, so a fork bomb shares one scheduling group (autogroup) at low priority
    assert leader == "True"
    if autogroup_on():
        assert group == "5"


@pytest.mark.skipif(shutil.which("runuser") is None, reason="runuser is needed to switch users")
def test_locked_down_as_unprivileged(tmp_path_factory, unprivileged_user):
    if os.geteuid() != 0:
        pytest.skip("the suite already runs unprivileged: the test above covers it")
    base = tmp_path_factory.mktemp("unprivileged")
    for folder in (base, *base.parents):  # pytest's folders are private to root
        st = folder.stat()
        if st.st_mode & 0o1000 or st.st_uid != os.geteuid() or folder == folder.parent:
            break  # a shared sticky folder (/tmp, /var/tmp), another account's, or /: not ours to open
        folder.chmod(0o755)
    course = make_course(str(base / "course"))
    graded = probed_class(course, owner=unprivileged_user)
    done = grade(course, user=unprivileged_user)
    assert done.returncode == 0, done.stdout + done.stderr
    uid, nnp, capeff, capbnd, leader, _, _ = probe_line(graded)
    assert (nnp, capeff, capbnd) == ("1", "0" * 16, "0" * 16)
    assert uid != "0" and leader == "True"


def test_clone_uses_its_own_grader(tmp_path):
    """Grading from a clone other than the one the environment was installed from: the kernels
    import the job side from where the grading command imported it, and it is visible inside."""
    clone = copy_working_tree(str(tmp_path / "second-clone"), untracked=True)
    graded = probed_class(clone)
    done = grade(clone, cwd=clone)  # `python -m autograder` from the clone imports the clone's grader
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 graded" in done.stdout
    assert probe_line(graded)[-1].startswith(os.path.join(clone, "gradebox"))
