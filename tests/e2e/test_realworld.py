"""Training and inference code nobody here wrote (tests/fixtures/realworld/: PyTorch's docs and examples, d2l,
fastbook, minGPT/nanoGPT, Accelerate, transformers, Lightning, forums), each adapted into an exercise's
signature and labelled by reading before the grader ran: the grader must agree with every label,
through the real CLI, run from another folder."""

import os

import pytest

from tests.labelled import REALWORLD, diagnose, internals, labelled_files, realworld_table

FILES = labelled_files(REALWORLD)


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    cache = {}

    def of(exercise):
        if exercise not in cache:
            paths = [p for e, p, _, _ in FILES if e == exercise]
            cache[exercise] = diagnose(exercise, paths, 60, tmp_path_factory.mktemp(exercise))
        return cache[exercise]

    return of


def test_40_files_cover_exercises():
    from autograder.exercises import EXERCISES

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
