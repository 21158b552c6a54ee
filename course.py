#!/usr/bin/env python3
"""One entry point for people, with nothing installed but Python 3.11:

    python3 course.py lab    set up .venv (pinned dependencies + the course packages), copy the
                             student notebooks into my-work/ (never overwriting your copies) and
                             open JupyterLab on lesson 1
    python3 course.py test   set up .venv if needed, then run the whole test suite

Setting up is skipped when .venv already matches requirements*.txt and pyproject.toml.
Extra arguments after `test` go to pytest (e.g. `python3 course.py test -k corpus`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(ROOT, ".venv")
BIN = os.path.join(VENV, "bin")
STAMP = os.path.join(VENV, ".course-installed")
WORK = os.path.join(ROOT, "my-work")
FIRST_LESSON = "lesson1_requires_grad"
INPUTS = ("requirements.txt", "requirements-dev.txt", "pyproject.toml")


def _fingerprint() -> str:
    digest = hashlib.sha256()
    for name in INPUTS:
        with open(os.path.join(ROOT, name), "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


def setup() -> None:
    if sys.version_info < (3, 10):  # noqa: UP036 - people do start it with an old python3
        sys.exit(f"course.py: Python 3.10 or newer is needed (this is {sys.version.split()[0]}).")
    if os.path.exists(STAMP) and open(STAMP).read() == _fingerprint():
        return
    if not os.path.exists(os.path.join(BIN, "python")):
        print("course.py: creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("course.py: installing the pinned dependencies and the course packages ...", flush=True)
    pip = [os.path.join(BIN, "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run(pip + ["-r", os.path.join(ROOT, "requirements-dev.txt"), "-e", ROOT], check=True)
    with open(STAMP, "w") as f:
        f.write(_fingerprint())


def copy_student_notebooks() -> None:
    """Copy each released notebook to my-work/ unless the student already has a copy there."""
    release = os.path.join(ROOT, "release")
    os.makedirs(WORK, exist_ok=True)
    for assignment in sorted(os.listdir(release)):
        source = os.path.join(release, assignment, f"{assignment}.ipynb")
        target = os.path.join(WORK, f"{assignment}.ipynb")
        if os.path.isfile(source) and not os.path.exists(target):
            shutil.copyfile(source, target)


def lab(extra: list[str]) -> int:
    setup()
    copy_student_notebooks()
    notebook = os.path.join("my-work", f"{FIRST_LESSON}.ipynb")
    return subprocess.call([os.path.join(BIN, "jupyter"), "lab", notebook, *extra], cwd=ROOT)


def test(extra: list[str]) -> int:
    setup()
    return subprocess.call([os.path.join(BIN, "python"), "-m", "pytest", *extra], cwd=ROOT)


def main(argv: list[str]) -> int:
    commands = {"lab": lab, "test": test}
    if not argv or argv[0] not in commands:
        print(__doc__)
        return 2
    return commands[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
