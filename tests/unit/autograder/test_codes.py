"""Every diagnosis code has a meaning in words and a lesson section to read again (docs/codes.md's
tables, made from autograder/codes.py, are checked in tests/unit/course/test_docs.py)."""

import glob
import json
import os

import pytest

from autograder import codes
from gradebox.exercises import EXERCISES
from tests.conftest import ROOT
from tests.labelled import CORPUS, REALWORLD, labelled_files


def _headings_by_exercise() -> dict[str, set[str]]:
    """For each exercise, the `## ` headings of the lesson notebook whose answer cell it is."""
    found = {}
    # the English lessons: REVISIT names their headings (an edition's report is the instructor's, in English)
    for path in glob.glob(os.path.join(ROOT, "notebooks", "*", "*.ipynb")):
        if path.endswith("_pt_br.ipynb"):
            continue
        with open(path, encoding="utf-8") as f:
            cells = json.load(f)["cells"]
        headings = {
            "".join(c["source"]).split("\n", 1)[0][3:].strip()
            for c in cells
            if c["cell_type"] == "markdown" and "".join(c["source"]).startswith("## ")
        }
        for cell in cells:
            meta = cell["metadata"].get("nbgrader", {})
            if meta.get("solution") and meta.get("grade_id") in EXERCISES:
                found[meta["grade_id"]] = headings
    return found


HEADINGS = _headings_by_exercise()


def test_every_exercise_has_default():
    assert set(codes.MEANINGS) == set(EXERCISES) == set(HEADINGS)
    for exercise in EXERCISES:
        assert codes.REVISIT[exercise].get(""), exercise


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_sections_are_headings(exercise):
    for code, heading in codes.REVISIT[exercise].items():
        assert heading in HEADINGS[exercise], f"{exercise} {code or '(default)'}: no section {heading!r}"
        assert code == "" or code in codes.MEANINGS[exercise] or code in codes.SHARED, code


def test_corpus_codes_have_meanings():
    for exercise, path, _, code in labelled_files(CORPUS) + labelled_files(REALWORLD):
        assert codes.meaning(exercise, code), f"{os.path.relpath(path, ROOT)}: {code} has no meaning"


def test_no_section_means_default():
    assert codes.revisit("train_step", "never_clears") == "3. The bug: forgetting to clear"
    assert codes.revisit("train_step", "no_step") == codes.REVISIT["train_step"][""]
    assert codes.meaning("train_step", "unanswered") == codes.SHARED["unanswered"]
    assert codes.meaning("train_step", "no_such_code") == ""
