"""`python -m autograder diagnose --lang pt_BR`, through the judging pool's worker processes: over real
corpus files of one exercise per lesson, every verdict has the same code and `passed` as in English, the
fields in the same order, and a Portuguese message (never the English one)."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, requires_bwrap
from tests.labelled import header

pytestmark = requires_bwrap
EXERCISES = ("graph_ops", "derivative", "train_step", "predict")


HANG_TIMEOUT = 4  # seconds: a file labelled `timeout` only has to be cut off, in each language alike


def diagnose(exercise: str, files: list[str], *lang: str) -> list[dict]:
    """One JSON line per file, in order: the files labelled `timeout` in a command of their own with a
    short --timeout (each would spin the whole default limit), the others with the default limit."""
    hangs = [f for f in files if header(f)["code"] == "timeout"]
    rows = {}
    for group, limit in ((hangs, ["--timeout", str(HANG_TIMEOUT)]), ([f for f in files if f not in hangs], [])):
        if not group:
            continue
        command = [sys.executable, "-m", "autograder", "diagnose", *lang, *limit, "--jobs", "2", exercise, *group]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
        assert done.returncode in (0, 1), done.stderr[-2000:]
        lines = [json.loads(line, object_pairs_hook=lambda pairs: pairs) for line in done.stdout.splitlines()]
        rows.update(zip(group, lines, strict=True))
    return [rows[f] for f in files]


@pytest.mark.parametrize("exercise", EXERCISES)
def test_the_same_verdicts_in_portuguese_with_portuguese_messages(exercise):
    files = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "corpus", exercise, "*.py")))[:8]
    assert files
    english, portuguese = diagnose(exercise, files), diagnose(exercise, files, "--lang", "pt_BR")
    assert len(english) == len(portuguese) == len(files)
    for ours, theirs in zip(english, portuguese):
        assert [key for key, _ in ours] == [key for key, _ in theirs]  # the contract's fields, in its order
        ours, theirs = dict(ours), dict(theirs)
        assert {k: v for k, v in ours.items() if k != "message"} == {k: v for k, v in theirs.items() if k != "message"}
        assert theirs["message"] and theirs["message"] != ours["message"], ours["file"]
        assert ours["message"].split(". ")[0] not in theirs["message"], "no English sentence left"


def test_an_unknown_language_is_a_usage_error():
    done = subprocess.run([sys.executable, "-m", "autograder", "diagnose", "--lang", "../../x", "train_step", "x.py"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2 and "--lang" in done.stderr
