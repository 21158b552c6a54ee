"""The scoring job (gradebox/jobs/score_job.py), run by the sandbox's warm server as grading runs it:
an answer cell that runs out of time ends with every process it started, so the checks after it
are scored as usual instead of waiting out the job's own limit; and that time is the one the cell
had in the kernel (``scoring_limits`` in autograder/grading/score.py)."""

from __future__ import annotations

import shutil
from dataclasses import replace

from traitlets.config import Config

from autograder.grading.score import scoring_limits
from autograder.host.client import in_order, shared_server
from autograder.judge import judge_scenarios
from gradebox import exercises
from gradebox.limits import DEFAULTS
from tests.conftest import requires_bwrap
from tests.course_copy import CORRECT_TRAIN_STEP

pytestmark = requires_bwrap

FORK_BOMB = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
SLEEPER = "import time\nwhile True:\n    time.sleep(0.1)"
CHECK = {"exercise": "train_step", "function": "train_step", "start": "fresh", "seed": 0}


def score(answers: list[str], cell_seconds: int = 2):
    """Run the answer cells, then one check of train_step; the job's exit code and the verdict."""
    # The cells' own 2 s is what is tested; the notebook's budget only has to outlast a busy machine
    # (a CI run with other suites beside it took over 60 s for the fork bomb's cleanup and the check).
    limits = replace(DEFAULTS, cell_seconds=cell_seconds, notebook_seconds=300)
    items = [{"kind": "code", "index": i, "source": s, "label": f"In [{i + 1}]"} for i, s in enumerate(answers)]
    plan = {"shared": [], "items": [*items, {"kind": "checks", "index": len(items), "checks": [CHECK]}]}
    server = shared_server("kernel")
    job_dir = server.new_job_dir()
    try:
        job = server.spawn_score(job_dir, plan, limits)
        try:
            job.wait(timeout=limits.notebook_seconds)
            records = in_order(job.frames(), f"{len(items)}-0-")
        finally:
            job.close_files()
    finally:
        shutil.rmtree(job_dir, ignore_errors=True)
    scenarios = exercises.get("train_step").suite(CHECK["start"], CHECK["seed"])
    return job.returncode, judge_scenarios("train_step", scenarios, records, limits=limits)


def test_fork_bomb_ended_check_scored():
    code, verdict = score([CORRECT_TRAIN_STEP, FORK_BOMB])
    assert code == 0
    assert verdict.passed, verdict.message


def test_hanging_cell_check_scored():
    code, verdict = score([CORRECT_TRAIN_STEP, SLEEPER])
    assert code == 0
    assert verdict.passed, verdict.message


def test_answer_after_timeout_runs():
    """Run All goes on after a cell that ran out of time: a later answer still counts."""
    code, verdict = score([FORK_BOMB, CORRECT_TRAIN_STEP])
    assert code == 0
    assert verdict.passed, verdict.message


def test_cell_time_is_kernels():
    config = Config()
    config.ExecutePreprocessor.timeout = 7
    assert scoring_limits(config).cell_seconds == 7


def test_cell_time_defaults_to_limits():
    config = Config()
    config.SandboxLimits.cell_seconds = 9
    assert scoring_limits(config).cell_seconds == 9
    assert scoring_limits(Config()).cell_seconds == DEFAULTS.cell_seconds
