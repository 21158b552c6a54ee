"""Training and inference code nobody here wrote (tests/fixtures/realworld/: PyTorch's docs and examples, d2l,
fastbook, minGPT/nanoGPT, Accelerate, transformers, Lightning, forums), each adapted into an exercise's
signature and labelled by reading before the grader ran: the grader must agree with every label.  The verdicts
come from the API behind `python -m autograder diagnose`, in this process (one warm server for all);
the command itself, run from another folder, must print the same verdicts for one exercise's files."""

import os

import pytest

from tests.labelled import REALWORLD, diagnose, diagnose_here, internals, labelled_files, realworld_table

FILES = labelled_files(REALWORLD)


@pytest.fixture(scope="module")
def verdicts():
    cache = {}

    def of(exercise):
        if exercise not in cache:
            paths = [p for e, p, _, _ in FILES if e == exercise]
            cache[exercise] = diagnose_here(exercise, paths, 60)
        return cache[exercise]

    return of


def test_40_files_cover_exercises():
    from gradebox.exercises import EXERCISES

    assert len(FILES) >= 40
    assert {e for e, _, _, _ in FILES} == set(EXERCISES)
    assert any(passed for _, _, passed, _ in FILES) and any(not passed for _, _, passed, _ in FILES)


def test_files_name_their_source():
    from tests.labelled import header

    for _, path, _, _ in FILES:
        fields = header(path)
        assert fields.get("source") and fields.get("adapted") and fields.get("why"), path


def test_readme_table_from_headers():
    readme = open(os.path.join(REALWORLD, "README.md"), encoding="utf-8").read()
    assert realworld_table() in readme, "run `python -m tests.labelled`"


@pytest.mark.parametrize(
    "exercise, path, passed, code", FILES, ids=[os.path.relpath(p, REALWORLD)[:-3] for _, p, _, _ in FILES]
)
def test_grader_agrees_with_label(verdicts, exercise, path, passed, code):
    row = verdicts(exercise)[path]
    assert (row["code"], row["passed"]) == (code, passed), row["message"]
    assert row["message"].strip()
    assert internals(row) == [], f"the message shows the grader's internals: {row['message']}"


def test_cli_prints_same_verdicts(verdicts, tmp_path):
    paths = [p for e, p, _, _ in FILES if e == "train_step"]
    printed = diagnose("train_step", paths, 60, str(tmp_path))
    assert printed == {path: verdicts("train_step")[path] for path in paths}
