"""Every labelled student-style file in tests/fixtures/corpus/<exercise>/ gets the verdict its first
line promises, from the API behind `python -m autograder diagnose` (in this process, so that one warm
server judges all of them; tests/e2e/test_realworld.py goes through the command itself)."""

import os

import pytest

from tests.labelled import CORPUS, diagnose_here, internals, labelled_files

HANG_TIMEOUT = 6  # seconds: a hang variant only has to be cut off
FILES = labelled_files(CORPUS)


@pytest.fixture(scope="module")
def verdicts():
    """Verdicts per exercise, computed on first use: `pytest -k <exercise>` judges only that one."""
    cache = {}

    def of(exercise):
        if exercise not in cache:
            hangs = [p for e, p, _, code in FILES if e == exercise and code == "timeout"]
            others = [p for e, p, _, code in FILES if e == exercise and code != "timeout"]
            cache[exercise] = {}
            if hangs:
                cache[exercise].update(diagnose_here(exercise, hangs, HANG_TIMEOUT))
            cache[exercise].update(diagnose_here(exercise, others, 60))
        return cache[exercise]

    return of


def test_covers_every_lesson3_code():
    assert len(FILES) >= 40
    codes = {code for e, _, _, code in FILES if e in ("train_step", "train_accumulated", "manual_sgd_step")}
    must = {
        "ok", "clears_after_step", "never_clears", "clears_once", "clears_after_backward",
        "clears_every_micro_batch", "clears_some_params", "loss_not_scaled", "steps_every_micro_batch",
        "no_backward", "no_step", "no_clear", "update_tracked", "wrong_update", "wrong_gradient",
        "error", "timeout", "tampered", "clips_gradients", "none_grad_crash", "swapped_loss_args",
        "weighted_by_examples",
    }  # fmt: skip
    assert must <= codes, f"codes without a variant: {sorted(must - codes)}"


@pytest.mark.parametrize("exercise", sorted({f[0] for f in FILES}))
def test_15_variants_per_exercise(exercise):
    labels = [(passed, code) for e, _, passed, code in FILES if e == exercise]
    assert len(labels) >= 15
    assert any(passed for passed, _ in labels) and any(code == "error" for _, code in labels)
    assert all(passed == (code == "ok") for passed, code in labels)


@pytest.mark.parametrize(
    "exercise, path, passed, code", FILES, ids=[f"{e}/{os.path.basename(p)[:-3]}" for e, p, _, _ in FILES]
)
def test_variants_get_their_label(verdicts, exercise, path, passed, code):
    row = verdicts(exercise)[path]
    assert (row["code"], row["passed"]) == (code, passed), row["message"]
    assert row["exercise"] == exercise
    assert row["message"].strip()
    assert internals(row) == [], f"the message shows the grader's internals: {row['message']}"
