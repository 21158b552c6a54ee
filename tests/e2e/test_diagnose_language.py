"""`python -m autograder diagnose --lang pt_BR`, through the judging pool's worker processes: over real
corpus files of one exercise per lesson, every verdict has the same code and `passed` as in English, the
fields in the same order, and a Portuguese message (never the English one).

The English lines are the same files' runs from the suite's one run of the corpus (tests/corpus_runs.py),
judged by the judging pool in English as the command judges them: ``verdict.to_json(path)`` is the line
it prints.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import pytest

from autograder.i18n import ENGLISH, speaking
from tests.conftest import ROOT, requires_bwrap
from tests.corpus_runs import HANG_SECONDS
from tests.labelled import header

pytestmark = requires_bwrap
EXERCISES = ("graph_ops", "derivative", "train_step", "predict")


# seconds: a file labelled `timeout` only has to be cut off (it spins for the whole limit).  The limit
# of the session's run (tests/corpus_runs.py), which the English lines come from.
HANG_TIMEOUT = HANG_SECONDS


def pairs(line: str) -> list[tuple]:
    """A JSON line's fields as (key, value) pairs, in their order."""
    return json.loads(line, object_pairs_hook=lambda pairs: pairs)


def english_lines(exercise: str, files: list[str], corpus_runs) -> list[list[tuple]]:
    """Each file's line as `python -m autograder diagnose` prints it in English, from the session's run
    of the file (a file labelled `timeout` ran with ``HANG_SECONDS``), judged by the pool as the command does."""
    with speaking(ENGLISH):
        return [pairs(corpus_runs.line(exercise, path, header(path)["code"])) for path in files]


def diagnose(exercise: str, files: list[str], *lang: str) -> list[list[tuple]]:
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
        lines = [pairs(line) for line in done.stdout.splitlines()]
        rows.update(zip(group, lines, strict=True))
    return [rows[f] for f in files]


@pytest.mark.parametrize("exercise", EXERCISES)
def test_the_same_verdicts_in_portuguese_with_portuguese_messages(exercise, corpus_runs):
    files = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "corpus", exercise, "*.py")))[:8]
    assert files
    english, portuguese = english_lines(exercise, files, corpus_runs), diagnose(exercise, files, "--lang", "pt_BR")
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
