"""`nbgrader zip_collect` itself, with the course's configuration, on a Canvas download a student
tried to use: a zip inside it names another student, two accounts share a name, and a student
re-uploaded the notebook twice (Canvas's -1, -2).  Everyone named by Canvas gets their own work,
the nested zip earns nothing, and every file left out is listed at the end of the output."""

from __future__ import annotations

import io
import json
import os
import zipfile

import pytest

from tests.course_copy import make_course, nbgrader

LESSON = "lesson3_zeroing_grad"
NOTEBOOK = f"{LESSON}.ipynb"


def notebook(answer: str) -> bytes:
    return json.dumps({"cells": [], "metadata": {"answer": answer}, "nbformat": 4, "nbformat_minor": 5}).encode()


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, content in members.items():
            z.writestr(name, content)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> str:
    course = make_course(str(tmp_path_factory.mktemp("zip-collect")))
    nbgrader(course, "generate_assignment", LESSON)  # zip_collect checks names against the release
    return course


def answer(course: str, student: str) -> str | None:
    path = os.path.join(course, "submitted", student, LESSON, NOTEBOOK)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)["metadata"]["answer"]


def test_zip_collect_takes_identity_from_the_top_level_only(course):
    archive = os.path.join(course, "downloaded", LESSON, "archive")
    os.makedirs(archive)
    download = {
        f"ada_101_201_{NOTEBOOK}": notebook("ada's own"),
        f"mallory_102_202_{NOTEBOOK}": notebook("mallory's own"),
        "mallory_102_202_helpers.zip": zipped({f"ada_101_999_{NOTEBOOK}": notebook("mallory's, in ada's name"),
                                               f"frank_107_999_{NOTEBOOK}": notebook("mallory's, in frank's name")}),
        f"bob_103_203_{NOTEBOOK}": notebook("bob's first"),
        f"bob_103_203_{LESSON}-1.ipynb": notebook("bob's second"),
        f"bob_103_203_{LESSON}-2.ipynb": notebook("bob's third"),
        f"carol_104_204_{NOTEBOOK}": notebook("one carol's"),
        f"carol_105_205_{NOTEBOOK}": notebook("another carol's"),
        f"erin_LATE_106_206_{NOTEBOOK}": notebook("erin's, late"),
    }  # fmt: skip
    with open(os.path.join(archive, "submissions.zip"), "wb") as f:
        f.write(zipped(download))

    done = nbgrader(course, "zip_collect", LESSON)

    collected = {student: answer(course, student) for student in ("ada", "mallory", "bob", "carol", "erin", "frank")}
    assert collected == {"ada": "ada's own", "mallory": "mallory's own", "bob": "bob's third", "carol": None,
                         "erin": "erin's, late", "frank": None}  # fmt: skip
    assert sorted(os.listdir(os.path.join(course, "submitted"))) == ["ada", "bob", "erin", "mallory"]
    listing = done.stderr.split("zip_collect left out 5 file(s)")[1]
    assert "submissions.zip/mallory_102_202_helpers.zip: an archive inside the download" in listing
    assert f"submissions.zip/carol_104_204_{NOTEBOOK}: one of 2 files for carol's {NOTEBOOK}" in listing
    assert f"submissions.zip/carol_105_205_{NOTEBOOK}" in listing
    assert f"submissions.zip/bob_103_203_{NOTEBOOK}: an earlier upload of bob's" in listing
    assert f"submissions.zip/bob_103_203_{LESSON}-1.ipynb" in listing
    assert "999" not in done.stderr  # the nested zip's files were never read
