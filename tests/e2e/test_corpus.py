"""Every labelled student-style file in tests/fixtures/corpus/<exercise>/ gets the verdict its first
line promises, made as ``autograder.diagnose.diagnose_file`` (behind `python -m autograder diagnose`)
makes it: the file's run in the sandbox (run once for the suite's corpus tests, tests/corpus_runs.py), its
records judged by the judging pool (``shared_pool(limits).judge``).  The command itself is covered by
tests/e2e/test_realworld.py and tests/e2e/test_diagnose_language.py."""

import json
import os

import pytest

from tests.labelled import CORPUS, internals, labelled_files

FILES = labelled_files(CORPUS)


@pytest.fixture(scope="module")
def verdicts(corpus_runs):
    """Each file's line as `python -m autograder diagnose` prints it, per exercise, computed on first use:
    `pytest -k <exercise>` runs and judges only that one."""
    cache = {}

    def of(exercise):
        if exercise not in cache:
            cache[exercise] = {
                path: json.loads(corpus_runs.line(exercise, path, code)) for e, path, _, code in FILES if e == exercise
            }
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
