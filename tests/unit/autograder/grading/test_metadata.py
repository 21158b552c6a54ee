"""CheckCellMetadata with a prepared schema: nbgrader's verdict and message on every notebook."""

import copy
import logging
import os

import nbformat
import pytest
from nbgrader.nbgraderformat import MetadataValidator as NbgraderValidator
from nbgrader.nbgraderformat import ValidationError
from nbgrader.nbgraderformat.common import SchemaMismatchError
from nbgrader.preprocessors import CheckCellMetadata as NbgraderCheck

from autograder.grading.metadata import CheckCellMetadata, MetadataValidator
from tests.conftest import ROOT  # noqa: E402

SOURCE = os.path.join(ROOT, "notebooks", "lesson3_zeroing_grad", "lesson3_zeroing_grad.ipynb")


@pytest.fixture(scope="module")
def lesson():
    return nbformat.read(SOURCE, as_version=4)


def graded_cell(nb, solution=None):
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and (solution is None or meta.get("solution") == solution):
            return cell
    raise AssertionError("the lesson has no such cell")


def corrupt(nb, how):
    nb = copy.deepcopy(nb)
    test = graded_cell(nb, solution=False)
    meta = test.metadata["nbgrader"]
    if how == "points not a number":
        meta["points"] = "ten"
    elif how == "grade_id missing":
        del meta["grade_id"]
    elif how == "grade not a bool":
        meta["grade"] = "yes"
    elif how == "duplicate grade id":
        other = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") not in (None, meta["grade_id"])]
        other[0].metadata["nbgrader"]["grade_id"] = meta["grade_id"]
    elif how == "schema too old":
        meta["schema_version"] = 1
    elif how == "schema too new":
        meta["schema_version"] = 99
    elif how == "negative points":
        meta["points"] = -3
    elif how == "graded markdown without solution":
        md = nbformat.v4.new_markdown_cell("Explain.")
        md.metadata["nbgrader"] = {**meta, "grade_id": "md_graded", "solution": False}
        nb.cells.append(md)
    return nb


CASES = [
    "points not a number",
    "grade_id missing",
    "grade not a bool",
    "duplicate grade id",
    "schema too old",
    "schema too new",
    "negative points",
    "graded markdown without solution",
]


def outcome(validator, nb):
    try:
        validator.validate_nb(nb)
    except (ValidationError, SchemaMismatchError) as error:
        return type(error).__name__, str(error)
    return "valid", ""


def test_lesson_valid_for_both(lesson):
    assert outcome(MetadataValidator(), lesson) == outcome(NbgraderValidator(), lesson) == ("valid", "")


@pytest.mark.parametrize("how", CASES)
def test_same_error_as_nbgrader(lesson, how):
    nb = corrupt(lesson, how)
    ours, theirs = outcome(MetadataValidator(), nb), outcome(NbgraderValidator(), nb)
    assert theirs[0] != "valid", f"the case '{how}' does not corrupt anything"
    assert ours == theirs


def test_preprocessor_refuses_alike(lesson, caplog):
    nb = corrupt(lesson, "points not a number")
    with caplog.at_level(logging.ERROR):
        for check in (CheckCellMetadata(), NbgraderCheck()):
            with pytest.raises(ValidationError, match="nbgrader metadata may be corrupted"):
                check.preprocess(nb, {})
    assert "ten" in caplog.text  # the real cause is logged, as nbgrader logs it


def test_schema_checked_once(lesson, monkeypatch):
    import jsonschema

    MetadataValidator().validate_nb(lesson)  # prepared here, if no test before did
    calls = []
    original = jsonschema.validators.Draft4Validator.check_schema
    monkeypatch.setattr(jsonschema.validators.Draft4Validator, "check_schema",
                        classmethod(lambda cls, s: calls.append(1) or original.__func__(cls, s)))  # fmt: skip
    for _ in range(3):
        CheckCellMetadata().preprocess(lesson, {})
    assert calls == []
