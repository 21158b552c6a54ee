"""The grader's own process (grade, nbgrader autograde, diagnose, report) never imports torch: the
sandbox's servers and the judging workers import it once each, and a grader that imported it too
would pay seconds and hundreds of MB per command for nothing (autograder/judge/__init__.py, JUDGES)."""

import subprocess
import sys

import pytest

from autograder import diagnose
from tests.conftest import ROOT

# What those commands import before their first job: the CLI, nbgrader's pipeline as the course
# names it, the pool that hands records to the judging workers, the file checks of diagnose.
GRADER_MODULES = [
    "autograder.cli",
    "autograder.diagnose",
    "autograder.judge",
    "autograder.judge.pool",
    "autograder.judge.validate",
    "autograder.grading.grade",
    "autograder.grading.score",
    "autograder.grading.execute",
    "autograder.grading.report",
    "autograder.host.client",
]


def test_the_grader_process_imports_no_torch():
    code = (
        f"import importlib, sys; [importlib.import_module(m) for m in {GRADER_MODULES!r}]; "
        "import autograder.judge as j; j.read_record  # the names are there, the judges are not loaded\n"
        "print(sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.')\n"
        "             or m.startswith('gradexercises.') and m.endswith(('.judge', '.job'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[]"


def test_the_judges_load_on_first_use_and_are_every_exercise():
    import gradexercises
    from autograder.judge import JUDGES, get

    assert set(JUDGES) == set(gradexercises.EXERCISES) and len(JUDGES) == len(gradexercises.EXERCISES)
    assert get("train_step").__name__ == "gradexercises.train_step.judge"
    with pytest.raises(KeyError, match="unknown exercise 'nope'"):
        get("nope")


def test_a_request_for_an_unknown_exercise_or_start_fails_before_any_job():
    with pytest.raises(KeyError, match="unknown exercise 'nope'; the exercises are: derivative, "):
        diagnose.diagnose_file("nope", "/no/such/file.py")
    with pytest.raises(ValueError, match="start must be 'all' or one of fresh, dirty, not 'stale'"):
        list(diagnose.diagnose_files("train_step", ["/no/such/file.py"], start="stale"))
    diagnose._check_request("derivative", "fresh")  # every exercise takes every start the CLI offers
