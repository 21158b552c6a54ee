"""The trust boundary through `python -m autograder diagnose`, as root and as an ordinary account:
whatever a job sends back is data, a pass needs the effects the judge computes on its own, records
built to be slow cannot stall the judge, and no job can see or touch another.

The same attacks go through both grading paths in tests/adversarial.py."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from tests.conftest import ROOT, requires_bwrap
from tests.course_copy import CORRECT_TRAIN_STEP
from tests.hostile import EMPTY_RECORDS, FORGE_DIAGNOSE, INF_GRADIENTS, LOG_LINKS, SLOW_RECORDS, SNOOP

pytestmark = requires_bwrap


def diagnose(folder: pathlib.Path, exercise: str, files: dict[str, str], *options: str, user: str | None = None):
    """One JSON row per file, by name."""
    paths = []
    for name, text in files.items():
        path = folder / name
        path.write_text(text)
        path.chmod(0o644)
        paths.append(str(path))
    command = [sys.executable, "-m", "autograder", "diagnose", exercise, *paths, *options]
    if user:
        command = ["runuser", "-u", user, "--", *command]
    began = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, cwd=folder, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    return {os.path.basename(row["file"]): row for row in rows}, time.monotonic() - began


@pytest.fixture
def shared_folder():
    """A folder every account can read (pytest's own are private to root)."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="autograder-boundary-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_inf_gradients_loop_fails(tmp_path):
    rows, _ = diagnose(tmp_path, "train_step", {"inf.py": INF_GRADIENTS, "correct.py": CORRECT_TRAIN_STEP})
    assert rows["correct.py"]["passed"]
    assert not rows["inf.py"]["passed"] and rows["inf.py"]["code"] != "ok"
    assert "inf or NaN" in rows["inf.py"]["message"]


def test_forged_records_earn_nothing(tmp_path):
    rows, _ = diagnose(tmp_path, "train_step", {"forged.py": FORGE_DIAGNOSE})
    row = rows["forged.py"]
    assert not row["passed"] and row["code"] in ("tampered", "wrong_update"), row


def test_empty_records_fail_and_say_so(tmp_path):
    rows, _ = diagnose(tmp_path, "manual_sgd_step", {"empty.py": EMPTY_RECORDS})
    row = rows["empty.py"]
    assert not row["passed"] and row["code"] == "error" and "cannot accept" in row["message"], row


def test_slow_records_refused_at_once(tmp_path):
    rows, seconds = diagnose(tmp_path, "train_step", {"slow.py": SLOW_RECORDS, "correct.py": CORRECT_TRAIN_STEP})
    assert not rows["slow.py"]["passed"] and rows["slow.py"]["code"] == "error"
    assert rows["correct.py"]["passed"]
    assert seconds < 120


def test_log_links_show_no_host_file(tmp_path):
    rows, _ = diagnose(tmp_path, "train_step", {"links.py": LOG_LINKS})
    row = rows["links.py"]
    assert row["code"] == "error" and "the last line this job printed" in row["message"], row
    assert "root:" not in row["message"]


@pytest.mark.parametrize("as_root", [True, False], ids=["grader is root", "grader is an ordinary account"])
def test_jobs_cannot_touch_each_other(shared_folder, unprivileged_user, as_root):
    if as_root and os.geteuid() != 0:
        pytest.skip("needs root")
    files = {f"snoop{i}.py": SNOOP for i in range(4)}
    user = None if as_root else unprivileged_user
    rows, _ = diagnose(shared_folder, "train_step", files, "--jobs", "4", "--timeout", "60", user=user)
    owns = set()
    for row in rows.values():
        assert "others=0 written=0" in row["message"], row["message"]
        owns.add(row["message"].rsplit("own=", 1)[1])
    assert len(owns) == 4  # four jobs, each in its own folder, at the same time


def test_a_file_copied_from_a_notebook_keeps_its_import_of_the_checks(tmp_path):
    """`diagnose` of a file that still says `from autograder.checks import ...` (the test cell's line,
    copied with the answer): the job side's stand-in is found, the grader's package is still not."""
    source = (
        "from autograder.checks import check_train_step\n"
        "import importlib.util\n"
        "JUDGE = importlib.util.find_spec('autograder.judge')\n"
        "def train_step(model, optimizer, loss_fn, x, y):\n"
        "    assert JUDGE is None and check_train_step.__module__ == 'gradebox.outside_checks'\n"
        "    optimizer.zero_grad()\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss.item()\n"
    )
    rows, _ = diagnose(tmp_path, "train_step", {"copied.py": source})
    assert rows["copied.py"]["code"] == "ok", rows["copied.py"]


def test_a_jobs_file_system_holds_the_job_side_and_nothing_of_the_grader(tmp_path):
    """A real job (diagnose's) tries the grader's modules, looks for its folder, and reads the mount
    points: the judge and grading cannot be imported, the grader's package is nowhere on the job's
    file system (in this clone it is not bound; installed in site-packages it would be covered), the
    exercise's folder holds its declaration and job side but not its judge, and the job side is
    there and imports."""
    grader = os.path.join(ROOT, "autograder")
    probe = (
        "import os\n"
        "def train_step(model, optimizer, loss_fn, x, y):\n"
        "    seen = []\n"
        "    for name in ('autograder.judge', 'autograder.grading', 'autograder', 'gradexercises.train_step.judge'):\n"
        "        try:\n"
        "            __import__(name)\n"
        "            seen.append(f'{name}=imported')\n"
        "        except ImportError:\n"
        "            seen.append(f'{name}=missing')\n"
        "    import autograder\n"
        "    seen.append(f'autograder_folders={len(autograder.__path__)}')\n"
        "    import gradebox, gradebox.jobs.profiles\n"
        "    seen.append(f'gradebox={sorted(gradebox.jobs.profiles.PROFILES)}'.replace(' ', ''))\n"
        f"    grader = {grader!r}\n"
        "    files = os.listdir(grader) if os.path.isdir(grader) else []\n"
        "    points = [line.split()[4] for line in open('/proc/self/mountinfo')]\n"
        "    mine = [p for p in points if p == grader or p.startswith(grader + '/')]\n"
        "    seen.append(f'grader_files={len(files)} grader_mounts={len(mine)}')\n"
        "    job_side = os.path.dirname(gradebox.__file__)\n"
        "    seen.append(f'gradebox_mounted={int(job_side in points)}')\n"
        "    import gradexercises.train_step.job as job\n"
        "    folder = os.path.dirname(job.__file__)\n"
        "    seen.append(f'exercise_files={sorted(os.listdir(folder))}'.replace(' ', ''))\n"
        "    raise RuntimeError(' '.join(seen))\n"
    )
    rows, _ = diagnose(tmp_path, "train_step", {"probe.py": probe})
    message = rows["probe.py"]["message"]
    # `import autograder` finds the job side's stand-in (a package with no folder: gradebox.jobs.standins),
    # which a file copied out of a notebook imports its checks from; nothing of the grader's is behind it.
    for part in ("autograder.judge=missing", "autograder.grading=missing", "autograder=imported",
                 "autograder_folders=0", "gradebox=['exercise','kernel']", "grader_files=0", "gradebox_mounted=1",
                 "gradexercises.train_step.judge=missing", "exercise_files=['__init__.py','job.py']"):  # fmt: skip
        assert part in message, message
    mounts = int(message.split("grader_mounts=")[1].split()[0])
    installed = not os.path.isdir(grader) or grader.startswith(sys.prefix)
    assert mounts == (1 if installed else 0), message  # covered only where a bound folder holds it


# A torch function mode pushed when the student's file loads, and never taken off: it sees every
# operation after the student's function returns, the recorder's copies included, and answers
# `clone()` with zeros so that the gradients step() saw read as cleared.
MODE_AT_LOAD = """
import torch
from torch.overrides import TorchFunctionMode

class Blind(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func is torch.Tensor.clone:
            return torch.zeros_like(out)
        return out

Blind().__enter__()

def train_step(model, optimizer, loss_fn, x, y):
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
"""


def test_a_mode_left_on_by_the_students_file_earns_nothing(tmp_path):
    rows, _ = diagnose(tmp_path, "train_step", {"mode.py": MODE_AT_LOAD, "correct.py": CORRECT_TRAIN_STEP})
    assert rows["correct.py"]["passed"]
    assert not rows["mode.py"]["passed"] and rows["mode.py"]["code"] == "tampered", rows["mode.py"]
