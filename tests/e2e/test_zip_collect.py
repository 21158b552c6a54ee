"""`nbgrader zip_collect` itself, with the course's configuration, on a Canvas download a student
tried to use: a zip inside it names another student, two accounts share a name, and a student
re-uploaded the notebook twice (Canvas's -1, -2).  Everyone named by Canvas gets their own work,
the nested zip earns nothing, and every file left out is listed at the end of the output."""

from __future__ import annotations

import io
import json
import os
import shutil
import zipfile

import pytest

from tests.course_copy import nbgrader

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
def course(tmp_path_factory, released) -> str:
    return released(str(tmp_path_factory.mktemp("zip-collect")), LESSON)  # zip_collect checks names against the release


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
    listing = done.stderr.split("; left out 5 file(s), nothing was deleted:")[1]
    assert "submissions.zip/mallory_102_202_helpers.zip: an archive inside the download" in listing
    assert f"submissions.zip/carol_104_204_{NOTEBOOK}: one of 2 files for carol's {NOTEBOOK}" in listing
    assert f"submissions.zip/carol_105_205_{NOTEBOOK}" in listing
    assert f"submissions.zip/bob_103_203_{NOTEBOOK}: an earlier upload of bob's" in listing
    assert f"submissions.zip/bob_103_203_{LESSON}-1.ipynb" in listing
    assert "999" not in done.stderr  # the nested zip's files were never read


def run_zip_collect(course: str, *flags: str):
    """`nbgrader zip_collect` as the instructor types it; the finished process, failed or not."""
    import subprocess

    return subprocess.run(["nbgrader", "zip_collect", *flags, LESSON], cwd=course, capture_output=True, text=True,
                          timeout=300)  # fmt: skip


def test_a_second_download_is_collected_with_force_and_its_left_out_files_are_listed_last(tmp_path, released):
    """The second day: Canvas's new download, where bob re-uploaded (``-1``), replaces the first in archive/."""
    course = released(str(tmp_path), LESSON)
    archive = os.path.join(course, "downloaded", LESSON, "archive")
    os.makedirs(archive)
    first = {f"ada_101_201_{NOTEBOOK}": notebook("ada's"), f"bob_103_203_{NOTEBOOK}": notebook("bob's first")}
    with open(os.path.join(archive, "submissions.zip"), "wb") as f:
        f.write(zipped(first))
    done = run_zip_collect(course)
    assert done.returncode == 0
    assert done.stderr.strip().splitlines()[-1].endswith("zip_collect collected 2 file(s) of 2 student(s): ada, bob")

    second = {**first, f"bob_103_203_{LESSON}-1.ipynb": notebook("bob's second"),
              f"cy_104_204_{NOTEBOOK}": notebook("cy's"),
              f"dee_105_205_{LESSON}_copy.ipynb": notebook("dee's, a name the release does not have")}  # fmt: skip
    with open(os.path.join(archive, "submissions.zip"), "wb") as f:
        f.write(zipped(second))
    again = run_zip_collect(course)
    assert again.returncode != 0  # nbgrader's own refusal, before anything is touched
    assert "use the --force option" in again.stderr
    assert answer(course, "bob") == "bob's first" and answer(course, "cy") is None
    shutil.rmtree(os.path.join(course, "downloaded", LESSON, "extracted"))  # a guess at what stood in the way
    stopped = run_zip_collect(course)
    assert stopped.returncode != 0  # ada's earlier submission is in the way: it says so, and claims nothing
    assert "zip_collect stopped before it copied every file (the error is above); left out 2 file(s)" in stopped.stderr
    assert "zip_collect collected" not in stopped.stderr

    forced = run_zip_collect(course, "--force")
    assert forced.returncode == 0
    assert {s: answer(course, s) for s in ("ada", "bob", "cy")} == {"ada": "ada's", "bob": "bob's second", "cy": "cy's"}
    summary = forced.stderr.split(
        "zip_collect collected 3 file(s) of 3 student(s): ada, bob, cy; left out 2 file(s), nothing was deleted:"
    )
    assert len(summary) == 2, forced.stderr[-2000:]
    listed = [line.strip() for line in summary[1].strip().splitlines()]  # the output's last lines, nothing after
    assert listed == [
        f"submissions.zip/dee_105_205_{LESSON}_copy.ipynb: not a notebook of this assignment (its release has "
        f"{NOTEBOOK}): copy it to archive/ under that name",
        f"submissions.zip/bob_103_203_{NOTEBOOK}: an earlier upload of bob's {NOTEBOOK}: the latest (the highest -N) "
        "is collected",
    ]
    assert answer(course, "dee") is None
    # each left-out file is said once, in that list: not also as it is met, nor by nbgrader's own warning
    assert "Not collected:" not in forced.stderr and "no match information provided" not in forced.stderr
