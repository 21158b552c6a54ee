"""Lesson 3's attacks on the tolerance (issue 33, tests/lesson3_attacks.py) through
`python -m autograder diagnose` and the notebook's self-check (``autograder.checks``): each earns
nothing at a seed where it passed before, with the code the judge names; the float32 loop and the
AMP recipe pass.  The notebook grading paths run ``autocast_lr_off`` in tests/adversarial.py."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from autograder.checks import NotYet, check
from tests.conftest import requires_bwrap
from tests.lesson3_attacks import CASES, CORRECT, function_of

pytestmark = requires_bwrap

# What the judge names each attack (the same at every seed: tests/unit/autograder/judge/test_lesson3_precision.py).
CODES = {
    "train_step_lr_off": "wrong_update",
    "train_step_lr_slightly_off": "wrong_update",
    "train_step_update_shrunk": "wrong_update",
    "train_step_gradient_off": "wrong_gradient",
    "train_accumulated_lr_off": "wrong_update",
}
SEED = 2  # every attack passed at seed 2 when the record chose the tolerance


@pytest.mark.parametrize("exercise", ["train_step", "train_accumulated"])
def test_diagnose_fails_each_attack_and_passes_each_correct_neighbour(tmp_path, exercise):
    names = [name for name, (of, _) in CASES.items() if of == exercise]
    for name in names:
        (tmp_path / f"{name}.py").write_text(CASES[name][1])
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "diagnose", exercise, *[f"{n}.py" for n in names], "--seed", str(SEED)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {row["file"][: -len(".py")]: row for row in map(json.loads, done.stdout.splitlines())}
    assert set(rows) == set(names)
    for name in names:
        want = ("ok", True) if name in CORRECT else (CODES[name], False)
        assert (rows[name]["code"], rows[name]["passed"]) == want, rows[name]


@pytest.mark.parametrize("start", ["fresh", "dirty"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_self_check_fails_each_attack_and_passes_each_correct_neighbour(name, start, capsys):
    exercise = CASES[name][0]
    if name in CORRECT:
        check(exercise, function_of(name), start=start, seed=SEED)
        assert "passed" in capsys.readouterr().out
        return
    with pytest.raises(NotYet, match=f"{exercise}: {CODES[name]}:"):
        check(exercise, function_of(name), start=start, seed=SEED)
