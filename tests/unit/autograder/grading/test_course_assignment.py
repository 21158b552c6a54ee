"""A course folder is graded only with its own pipeline: student code in the sandbox, checks scored
outside.  Whatever would make nbgrader grade without it (a bad setting that made traitlets skip the
course's nbgrader_config.py, a config that replaced the preprocessors) stops the command first."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

from tests.conftest import ROOT


def _course(tmp_path) -> str:
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(os.path.join(ROOT, "nbgrader_config.py"), course)
    return str(course)


def _run(course: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    environ = {**os.environ, **env}
    return subprocess.run([sys.executable, "-m", *args], cwd=course, env=environ, capture_output=True, text=True,
                          timeout=300)  # fmt: skip


def test_a_bad_setting_stops_nbgrader_instead_of_skipping_the_course_config(tmp_path):
    done = _run(_course(tmp_path), "nbgrader", "db", "assignment", "list", AUTOGRADER_EXCHANGE_KIND="File")
    assert done.returncode != 0
    assert "nbgrader_config.py: AUTOGRADER_EXCHANGE_KIND='File': expected one of file, ngshare" in done.stderr


def test_a_bad_setting_stops_grade(tmp_path):
    done = _run(_course(tmp_path), "autograder", "grade", "lesson1_requires_grad", AUTOGRADER_EXCHANGE_KIND="File")
    assert done.returncode != 0 and "AUTOGRADER_EXCHANGE_KIND='File'" in done.stderr + done.stdout


def test_grade_refuses_a_pipeline_without_the_sandbox(tmp_path):
    course = _course(tmp_path)
    path = os.path.join(course, "nbgrader_config.py")
    text = open(path, encoding="utf-8").read()
    without = re.sub(r'    "autograder\.grading\.execute\.SandboxedExecute",.*\n', "", text)
    assert without != text
    with open(path, "w", encoding="utf-8") as f:
        f.write(without)
    done = _run(course, "autograder", "grade", "lesson1_requires_grad")
    assert done.returncode != 0
    said = done.stderr + done.stdout
    assert "autograder.grading.execute.SandboxedExecute" in said and "outside the sandbox" in said, said
