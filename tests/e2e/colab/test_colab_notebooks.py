"""Colab: each student notebook, alone in an empty folder, in a Python holding only what Colab
preinstalls, installs the course from the student edition in its first cell and runs to the end.

The student setting is pointed at a local student edition (Colab would use the public URL): a copy of
this working tree is synced to it with `course.py sync`, committed, and its edition built with
`course.py student-edition`, as an instructor publishes it; a fresh virtual environment gets exactly
tests/e2e/colab/requirements.txt.  Without network access to Colab itself, what is not
covered here is Colab's own front end (its widget manager draws ipywidgets 7 in the browser).
"""

import glob
import json
import os
import subprocess
import sys
import venv

import nbformat
import pytest

from tests.conftest import LESSONS, ROOT
from tests.course_copy import answered, copy_working_tree, read, solutions

pytestmark = pytest.mark.slow
REQUIREMENTS = os.path.join(os.path.dirname(__file__), "requirements.txt")
GIT = ["git", "-c", "user.name=course tests", "-c", "user.email=tests@localhost", "-c", "init.defaultBranch=main"]

# Every lesson, and one Portuguese edition (its install cell sets the language; the packages carry the
# compiled catalogues): an edition is built from its lesson, so one of them tells what the others would.
ASSIGNMENTS = (*LESSONS, "lesson3_zeroing_grad_pt_br")


def run(command: list[str], cwd: str, timeout: int = 900, env: dict | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def repository(tmp_path_factory) -> str:
    """The student edition of this working tree (a git repository), with the course's student setting
    pointed at it."""
    folder = tmp_path_factory.mktemp("colab")
    repo, edition = str(folder / "course-repository"), str(folder / "student-edition")
    copy_working_tree(repo, untracked=True)
    pyproject = os.path.join(repo, "pyproject.toml")
    text = open(pyproject, encoding="utf-8").read()
    line = next(x for x in text.splitlines() if x.startswith("student_repository = "))
    with open(pyproject, "w", encoding="utf-8") as f:
        f.write(text.replace(line, f'student_repository = "file://{edition}"'))
    run([sys.executable, "course.py", "sync"], repo)
    run([*GIT, "init", "-q"], repo)
    run([*GIT, "add", "-A"], repo)
    run([*GIT, "commit", "-q", "-m", "the course"], repo)
    run([sys.executable, "course.py", "student-edition", "--out", edition], repo)
    return edition


@pytest.fixture(scope="module")
def colab_python(tmp_path_factory) -> str:
    """A fresh virtual environment with what Colab preinstalls, and nothing of the course.

    COURSE_COLAB_PYTHON=/path/to/python reuses one built earlier from the same requirements (to
    iterate faster locally); the course package is uninstalled from it before each notebook."""
    if os.environ.get("COURSE_COLAB_PYTHON"):
        return os.environ["COURSE_COLAB_PYTHON"]
    folder = str(tmp_path_factory.mktemp("colab-python") / "venv")
    venv.EnvBuilder(with_pip=True).create(folder)
    python = os.path.join(folder, "bin", "python")
    # --no-compile: this environment lives for one run, so Python compiles only what gets imported,
    # on first use, instead of every module of torch and its neighbours up front.
    run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile", "-r", REQUIREMENTS],
        folder)  # fmt: skip
    return python


def course_location(python: str) -> str | None:
    """Where that Python finds the course's packages (None: not installed)."""
    code = (
        "import importlib.util as u; s = [u.find_spec(n) for n in ('gradlessons', 'autograder')]; "
        "print(s[0].origin if all(s) else '')"
    )
    return run([python, "-c", code], "/", env=clean_env()).strip() or None


def clean_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # ipykernel 6.17's debugger talks about frozen modules otherwise
    return env


def execute_in(python: str, nb: dict, folder: str, name: str):
    """Run the notebook with a kernel of that Python, the way Colab runs it: cell after cell.

    nbclient runs in a process of its own (`jupyter execute`), so none of its sockets or event
    loops outlive this test inside the test process."""
    kernels = os.path.join(folder, "..", "jupyter", "kernels", "colab")
    os.makedirs(kernels, exist_ok=True)
    spec = {"argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": "Colab-like",
            "language": "python", "env": clean_env()}  # fmt: skip
    with open(os.path.join(kernels, "kernel.json"), "w") as f:
        json.dump(spec, f)
    path = os.path.join(folder, name)
    nbformat.write(nbformat.reads(json.dumps(nb), as_version=4), path)
    env = dict(clean_env(), JUPYTER_PATH=os.path.join(folder, "..", "jupyter"))
    execute = "import sys; from nbclient.cli import main; sys.exit(main())"
    command = [sys.executable, "-c", execute, "--inplace", "--allow-errors", "--timeout=600", "--kernel_name=colab"]
    run([*command, path], folder, env=env)  # errors stay in the outputs, where the test looks for them
    return nbformat.read(path, as_version=4)


def outputs(cell, kind: str) -> list[str]:
    found = []
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream" and out["name"] == kind:
            found.append(out["text"])
        elif kind == "error" and out["output_type"] == "error":
            found.append(f"{out['ename']}: {out['evalue']}")
    return found


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_installs_and_runs_alone(assignment, repository, colab_python, tmp_path):
    run([colab_python, "-m", "pip", "uninstall", "--quiet", "--yes", "autograd-course"], "/", env=clean_env())
    assert course_location(colab_python) is None, "the fresh Python must not have the course yet"
    source = read(os.path.join(ROOT, "notebooks", assignment, f"{assignment}.ipynb"))  # not in the edition
    release = read(os.path.join(repository, "release", assignment, f"{assignment}.ipynb"))
    folder = tmp_path / "content"  # Colab's working folder: the notebook is not even there
    folder.mkdir()
    notebook = execute_in(colab_python, answered(release, solutions(source)), str(folder), f"{assignment}.ipynb")

    installed = course_location(colab_python)
    assert installed and installed.startswith(os.path.dirname(os.path.dirname(colab_python))), installed
    install = next(c for c in notebook.cells if c.get("id") == "install")
    assert f"git+file://{repository}@" in install.source  # the student edition's branch
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        assert cell.execution_count is not None
        assert not outputs(cell, "error"), (cell.source[:300], outputs(cell, "error"))
        if cell is not install:  # pip may talk on stderr while it installs; nothing else may
            assert not outputs(cell, "stderr"), (cell.source[:300], outputs(cell, "stderr"))
    checks = "".join(t for c in notebook.cells for t in outputs(c, "stdout"))
    assert "✅" in checks and "❌" not in checks
    if assignment.endswith("_pt_br"):  # the installed packages carry the catalogue the install cell chose
        from autograder.i18n import _, speaking
        from gradebox.display import PASSED

        with speaking("pt_BR"):
            assert f"✅ train_step: {_(PASSED)}" in checks and f": {PASSED}\n" not in checks, checks[:2000]


def test_explorers_on_ipywidgets_7_7(colab_python):
    version = run([colab_python, "-c", "import ipywidgets; print(ipywidgets.__version__)"], "/", env=clean_env())
    assert version.startswith("7.7"), version
    # The same view tests that run with ipywidgets 8 in the course's own environment (the explorers'
    # state classes import no widget library, and the notebooks above ran them all in this Python).
    views = sorted(glob.glob(os.path.join("tests", "unit", "gradlessons", "*", "test_view.py"), root_dir=ROOT))
    assert len(views) == len(LESSONS), views
    done = subprocess.run(
        [colab_python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *views],
        cwd=ROOT, capture_output=True, text=True, timeout=900, env=clean_env(),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    assert " passed" in done.stdout
