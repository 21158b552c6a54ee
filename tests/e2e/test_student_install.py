"""A learner's first `python3 course.py lab` on a fresh clone, for real: the student set installed (uv, empty
caches), JupyterLab serving, no instructor tools, none of the other roles' packages.  About 25 s here
(benchmarks/student_install.py times it against the install before roles and against pip).  It clones the
committed HEAD, as a learner would: uncommitted changes are not in it."""

import os
import shutil
import subprocess

import pytest

from benchmarks.student_install import clone, first_lab

OTHER_ROLES = ("jupyterhub", "pytest", "playwright", "kubernetes", "ruff", "pylti1p3")


@pytest.fixture
def scratch(tmp_path):
    yield tmp_path
    shutil.rmtree(tmp_path, ignore_errors=True)  # 1.2 GB of .venv and as much cache: not kept for later runs


@pytest.mark.slow
def test_a_fresh_clone_serves_the_students_jupyterlab_with_the_student_set_only(scratch):
    folder = str(scratch / "course")
    clone("HEAD", folder)
    figures = first_lab(folder, str(scratch / "caches"), "uv")
    assert figures["formgrader"] == 404 and figures["instructor_plugins"] == []
    python = os.path.join(folder, ".venv", "bin", "python")
    listed = subprocess.run([python, "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True)
    installed = {line.split("==")[0].lower() for line in listed.stdout.splitlines()}
    assert {"torch", "jupyterlab", "nbgrader", "ipywidgets", "matplotlib", "autograd-course"} <= installed
    assert not installed & set(OTHER_ROLES), sorted(installed & set(OTHER_ROLES))
    with open(os.path.join(folder, ".venv", ".course-installed")) as f:
        assert '"role": "student"' in f.read()
    # nothing in the environment another account may change (uv's own lock file was left mode 666)
    everything = [os.path.join(top, name) for top, folders, files in os.walk(os.path.join(folder, ".venv"))
                  for name in folders + files]  # fmt: skip
    assert [p for p in everything if not os.path.islink(p) and os.lstat(p).st_mode & 0o002] == []
