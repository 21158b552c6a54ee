"""A notebook that scores 0 because it could not be read is a check for a person: it needs review,
with the reason, in the graded copy's metadata that ``grade``, the report and its CSV read.

Beside autograder/grading/notes.py (the review note); also tries intake's RecordRefusals and
structure's SubmissionExporter, which write and read it."""

import codecs
import json
import os

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from traitlets.config import Config

from autograder.grading.intake import LIST, PLACEHOLDER, REFUSED, RecordRefusals
from autograder.grading.notes import KEY, REVIEW, RecordNotes, notebook_review
from autograder.grading.structure import SubmissionExporter

RESOURCES = {"nbgrader": {"assignment": "a1", "notebook": "a1", "student": "bob"}}


@pytest.fixture
def released_course(tmp_path):
    """A course with a released a1, and bob's submission folder."""
    release = tmp_path / "release" / "a1"
    release.mkdir(parents=True)
    nbformat.write(new_notebook(cells=[new_code_cell("x = 1")]), str(release / "a1.ipynb"))
    (tmp_path / "submitted" / "bob" / "a1").mkdir(parents=True)
    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    return tmp_path, config


def _grade_file(course, data: bytes) -> dict:
    root, config = course
    path = root / "submitted" / "bob" / "a1" / "a1.ipynb"
    path.write_bytes(data)
    _, resources = SubmissionExporter(config=config).from_filename(
        str(path), resources=json.loads(json.dumps(RESOURCES))
    )
    return resources


GOOD = nbformat.writes(new_notebook(cells=[new_code_cell("x = 2")]))
UNREADABLE = {
    "utf16": GOOD.encode("utf-16"),
    "bom": codecs.BOM_UTF8 + GOOD.encode(),
    "invalid_json": GOOD[: len(GOOD) // 2].encode(),
    "no_cells": b'{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": 3}',
}


@pytest.mark.parametrize("kind", UNREADABLE)
def test_an_unreadable_notebook_needs_review_with_its_reason(released_course, kind):
    resources = _grade_file(released_course, UNREADABLE[kind])
    assert len(resources[REVIEW]) == 1
    assert resources[REVIEW][0].startswith("the submitted file is not a readable notebook (")
    assert f"Needs review: {resources[REVIEW][0]}." in resources[KEY]


def test_a_readable_notebook_needs_no_review(released_course):
    assert REVIEW not in _grade_file(released_course, GOOD.encode())


def test_a_refused_notebooks_stand_in_is_reviewed_once_by_its_refusal_not_as_unreadable(released_course):
    root, config = released_course
    resources = _grade_file(released_course, PLACEHOLDER.encode())
    assert REVIEW not in resources  # the refusal says why, below
    quarantine = root / "submitted" / "bob" / REFUSED / "a1"
    quarantine.mkdir(parents=True)
    (quarantine / LIST).write_text(json.dumps([{"path": "a1.ipynb", "why": "larger than 64 MiB"}]))
    resources["metadata"]["path"] = str(root / "submitted" / "bob" / "a1")
    nb, resources = RecordRefusals(config=config).preprocess(new_notebook(), resources)
    nb, _ = RecordNotes().preprocess(nb, resources)
    assert notebook_review(nb) == ["the notebook was not read: it was larger than 64 MiB"]


def test_an_earlier_refusal_of_a_notebook_handed_in_properly_since_needs_no_review(released_course):
    root, config = released_course
    resources = _grade_file(released_course, GOOD.encode())
    quarantine = root / "submitted" / "bob" / REFUSED / "a1"
    quarantine.mkdir(parents=True)
    (quarantine / LIST).write_text(json.dumps([{"path": "a1.ipynb", "why": "a link"}]))
    _, resources = RecordRefusals(config=config).preprocess(new_notebook(), resources)
    assert REVIEW not in resources and any("'a1.ipynb' was not graded" in n for n in resources[KEY])


def test_the_stand_in_is_not_read_through_a_link(released_course, tmp_path_factory):
    root, config = released_course
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "stand-in"
    elsewhere.write_text(PLACEHOLDER)
    notebook = root / "submitted" / "bob" / "a1" / "a1.ipynb"
    os.symlink(elsewhere, notebook)
    quarantine = root / "submitted" / "bob" / REFUSED / "a1"
    quarantine.mkdir(parents=True)
    (quarantine / LIST).write_text(json.dumps([{"path": "a1.ipynb", "why": "a link"}]))
    resources = {**json.loads(json.dumps(RESOURCES)), "metadata": {"path": str(notebook.parent)}}
    _, resources = RecordRefusals(config=config).preprocess(new_notebook(), resources)
    assert REVIEW not in resources
