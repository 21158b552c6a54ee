"""Adding an exercise is one folder: a toy exercise, ``double_it(x) -> float``, added to a copy of the
course as ``gradexercises/double_it/`` (its declaration, its job side, its judge) and nothing else of
the code, is served by `python -m autograder diagnose`, by the notebook's self-check (both ``check``
and the ``check_double_it`` its declaration names), by `python -m autograder grade` (a lesson
notebook whose test cell calls it: the lesson is where a student meets an exercise), and is listed
in docs/codes.md's table of exercises by the command that writes it.

Everything runs from the copy (``PYTHONPATH``), in processes of its own: the sandbox binds the copy's
job side, and the grader's judging workers import the copy's judge."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

from tests.conftest import ROOT, requires_bwrap
from tests.course_copy import answered, read, solutions, write

pytestmark = requires_bwrap

LESSON = "lesson1_requires_grad"
# What a course author writes: the three files of one folder.
TOY = {
    "__init__.py": '''"""The declaration of ``double_it``: a toy exercise."""

from gradexercises import N_, Exercise

EXERCISE = Exercise(
    name="double_it",
    lesson="lesson1_requires_grad",
    signature="double_it(x) -> float",
    codes={"ok": N_("correct"), "wrong_value": N_("not twice x")},
    revisit={"": "1. A tensor that requires grad"},
    points={"test_double_it": 1},
    check="check_double_it",
    starts=(),
)
''',
    "job.py": '''"""double_it(x) -> float: twice x."""

import random
from dataclasses import dataclass

NAME = "double_it"


@dataclass(frozen=True)
class Case:
    x: float

    @property
    def name(self) -> str:
        return f"x={self.x:g}"


def suite(start: str = "fresh", seed: int = 0) -> list[Case]:
    rng = random.Random(seed)
    return [Case(round(rng.uniform(-5, 5), 3)) for _ in range(3)]


def run(fn, scenario: Case) -> dict:
    value = fn(scenario.x)
    return {"returned": float(value) if isinstance(value, (int, float)) else None}
''',
    "judge.py": '''"""Judging double_it: what it returned, against twice x."""

from autograder.judge.validate import Fields, Number, Optional
from autograder.verdict import Verdict

from .job import NAME


def schema(scenario) -> Fields:
    return Fields({"returned": Optional(Number())})


def judge(scenarios, observations) -> Verdict:
    for case, seen in zip(scenarios, observations):
        if seen["returned"] is None or abs(seen["returned"] - 2 * case.x) > 1e-9:
            said = f"double_it({case.x:g}) returned {seen['returned']}, not {2 * case.x:g}."
            return Verdict(NAME, "wrong_value", said)
    return Verdict(NAME, "ok", "Correct: twice x in every case.")
''',
}
RIGHT, WRONG = "def double_it(x):\n    return 2 * x\n", "def double_it(x):\n    return x + x + 1\n"
# The lesson's two new cells: where students answer, and the test cell that grades it.
SOLUTION_CELL = "def double_it(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION\n"
TEST_CELL = "from autograder.checks import check_double_it\n\ncheck_double_it(double_it)\n"
COPIED = ("autograder", "gradebox", "gradexercises", "gradlessons", "notebooks", "docs", "nbgrader_config.py",
          "course.py", "course_i18n.py")  # fmt: skip


def _digests(top: str) -> dict[str, str]:
    found = {}
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            path = os.path.join(folder, name)
            found[os.path.relpath(path, top)] = hashlib.sha256(open(path, "rb").read()).hexdigest()
    return found


def _cell(kind: str, grade_id: str, source: str, points: int | None = None) -> dict:
    meta = {"grade": points is not None, "grade_id": grade_id, "locked": points is not None,
            "schema_version": 3, "solution": points is None, "task": False}  # fmt: skip
    if points is not None:
        meta["points"] = points
    return {"cell_type": kind, "execution_count": None, "id": grade_id.replace("_", "-"),
            "metadata": {"nbgrader": meta}, "outputs": [], "source": source}  # fmt: skip


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """A copy of the course with the toy exercise's folder added, and the environment that runs it."""
    copy = str(tmp_path_factory.mktemp("toy-course"))
    for name in COPIED:
        source, target = os.path.join(ROOT, name), os.path.join(copy, name)
        if os.path.isdir(source):
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, target)
    before = _digests(copy)
    folder = os.path.join(copy, "gradexercises", "double_it")
    os.mkdir(folder)
    for name, text in TOY.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(text)
    changed = sorted(p for p, digest in _digests(copy).items() if before.get(p) != digest)
    env = {**os.environ, "PYTHONPATH": copy}
    return {"course": copy, "changed": changed, "env": env}


def _python(toy: dict, *args: str, cwd: str | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd or toy["course"], env=toy["env"], capture_output=True,
                          text=True, timeout=timeout)  # fmt: skip


def test_the_toy_exercise_is_one_folder_of_code(toy):
    assert toy["changed"] == [f"gradexercises/double_it/{name}" for name in ("__init__.py", "job.py", "judge.py")]
    found = _python(toy, "-c", "import gradexercises, autograder; print(gradexercises.__file__, autograder.__file__)")
    assert found.stdout.split() == [
        os.path.join(toy["course"], p, "__init__.py") for p in ("gradexercises", "autograder")
    ]


def test_diagnose_serves_the_toy_exercise(toy, tmp_path):
    paths = []
    for name, source in (("right", RIGHT), ("wrong", WRONG)):
        paths.append(str(tmp_path / f"{name}.py"))
        (tmp_path / f"{name}.py").write_text(source)
    done = _python(toy, "-m", "autograder", "diagnose", "double_it", *paths, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["passed"], r["code"]) for r in rows] == [(True, "ok"), (False, "wrong_value")], rows
    listed = _python(toy, "-m", "autograder", "diagnose", "--help")
    assert "double_it" in listed.stdout


def test_the_self_check_serves_the_toy_exercise(toy):
    script = (
        "from autograder.checks import NotYet, check, check_double_it\n"
        f"exec({RIGHT!r})\n"
        "check('double_it', double_it)\n"
        "check_double_it(double_it)\n"
        f"exec({WRONG!r})\n"
        "try:\n"
        "    check_double_it(double_it)\n"
        "except NotYet as error:\n"
        "    print('NotYet:', error)\n"
    )
    done = _python(toy, "-c", script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("double_it: passed") == 2, done.stdout
    assert "NotYet: double_it: wrong_value:" in done.stdout
    assert "not twice x" in done.stdout  # the code's meaning, from the declaration, under the verdict


def test_grade_scores_the_toy_exercise(toy):
    """The lesson gains the exercise's two cells; `grade` scores the test cell from the declared check."""
    course = toy["course"]
    path = os.path.join(course, "notebooks", LESSON, f"{LESSON}.ipynb")
    nb = read(path)
    nb["cells"] += [_cell("code", "double_it", SOLUTION_CELL), _cell("code", "test_double_it", TEST_CELL, 1)]
    write(path, nb)
    env = toy["env"]
    done = subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", LESSON], cwd=course, env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    release = read(os.path.join(course, "release", LESSON, f"{LESSON}.ipynb"))
    answers = solutions(read(path))
    for student, source in (("alice", answers["double_it"]), ("bob", WRONG)):
        notebook = answered(release, {**answers, "double_it": source})
        write(os.path.join(course, "submitted", student, LESSON, f"{LESSON}.ipynb"), notebook)
    done = _python(toy, "-m", "autograder", "grade", LESSON, "--jobs", "2", timeout=1200)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    with Gradebook(f"sqlite:///{os.path.join(course, 'gradebook.db')}") as gradebook:
        scores = {s: gradebook.find_grade("test_double_it", LESSON, LESSON, s).score for s in ("alice", "bob")}
    assert scores == {"alice": 1, "bob": 0}


def test_the_docs_list_the_toy_exercise(toy):
    """docs/codes.md's table of exercises, written by the command `sync` uses, from the copy."""
    done = _python(toy, "-c", "import course; print(course.codes_blocks(open('docs/codes.md').read()))")
    assert done.returncode == 0, done.stderr
    assert "| `double_it` | `lesson1_requires_grad` | `double_it(x) -> float` | `check_double_it(double_it)` | 1 |" in (
        done.stdout
    )
