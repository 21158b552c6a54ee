"""The top of a course folder that other accounts can reach is closed again before grading: what a
looser umask made there is closed and said, what servers read stays open, links are not followed,
and what this account may not change stops grading with the command that fixes it.

The course folders here sit in /var/tmp, in a folder every account may pass through (pytest's own
folders are private, and a folder nobody else can reach has nothing to close)."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile

import pytest

from autograder.grading import course_folder
from autograder.grading.course_folder import CourseFolder, CourseFolderOpen, keep_closed, reachable_by_others


@pytest.fixture
def cloned_course_top():
    """A course folder's top as a clone under umask 022 leaves it, with what servers read."""
    base = tempfile.mkdtemp(prefix="autograd-closed-", dir="/var/tmp")
    os.chmod(base, 0o755)
    root = os.path.join(base, "course")
    for folder in ("hub/etc/jupyter", "autograder", "gradlessons", "submitted", ".autograder"):
        os.makedirs(os.path.join(root, folder))
    for name in ("nbgrader_config.py", "hub/etc/jupyter/nbgrader_config.py", "autograder/checks.py", "hub/roster.toml"):
        with open(os.path.join(root, name), "w") as f:
            f.write("# the course's\n")
    for folder, _, files in os.walk(root):
        os.chmod(folder, 0o751 if folder in (root, os.path.join(root, "hub")) else 0o750)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o640)
    for served in ("hub/etc", "hub/etc/jupyter", "autograder", "gradlessons"):
        os.chmod(os.path.join(root, served), 0o755)
    for served in ("hub/etc/jupyter/nbgrader_config.py", "autograder/checks.py"):
        os.chmod(os.path.join(root, served), 0o644)
    yield root
    shutil.rmtree(base, ignore_errors=True)


def made_under_umask(path: str, mask: int, folder: bool = False) -> None:
    previous = os.umask(mask)
    try:
        if folder:
            os.mkdir(path)
        else:
            with open(path, "w") as f:
                f.write("every student's grade\n")
    finally:
        os.umask(previous)


def mode(path: str) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_a_closed_course_folder_has_nothing_to_close(cloned_course_top):
    assert CourseFolder(cloned_course_top).open_entries() == []
    assert CourseFolder(cloned_course_top).close() == []


def test_a_gradebook_made_under_umask_000_is_closed_and_said(cloned_course_top):
    made_under_umask(os.path.join(cloned_course_top, "gradebook.db"), 0o000)
    made_under_umask(os.path.join(cloned_course_top, "downloaded"), 0o022, folder=True)
    said = CourseFolder(cloned_course_top).close()
    assert mode(os.path.join(cloned_course_top, "gradebook.db")) == 0o660
    assert mode(os.path.join(cloned_course_top, "downloaded")) == 0o750
    assert said == [
        f"closed downloaded in {cloned_course_top} to other accounts: it was drwxr-xr-x, now drwxr-x---",
        f"closed gradebook.db in {cloned_course_top} to other accounts: it was -rw-rw-rw-, now -rw-rw----",
    ]
    assert CourseFolder(cloned_course_top).open_entries() == []


def test_a_fresh_clones_many_open_entries_are_said_in_one_line_naming_each(cloned_course_top):
    names = [f"notes{i}.md" for i in range(7)]
    for name in names:
        made_under_umask(os.path.join(cloned_course_top, name), 0o022)
    said = CourseFolder(cloned_course_top).close()
    assert len(said) == 1 and said[0].startswith(
        f"closed 7 entries at the top of {cloned_course_top} to other accounts"
    )
    assert said[0].endswith(": " + ", ".join(names))
    assert all(mode(os.path.join(cloned_course_top, name)) & 0o007 == 0 for name in names)


def test_folders_students_pass_through_stay_passable_but_not_listable(cloned_course_top):
    os.chmod(cloned_course_top, 0o755)
    os.chmod(os.path.join(cloned_course_top, "hub"), 0o757)
    CourseFolder(cloned_course_top).close()
    assert mode(cloned_course_top) == 0o751
    assert mode(os.path.join(cloned_course_top, "hub")) == 0o751


def test_what_servers_read_stays_open(cloned_course_top):
    CourseFolder(cloned_course_top).close()
    assert mode(os.path.join(cloned_course_top, "hub/etc/jupyter/nbgrader_config.py")) == 0o644
    assert mode(os.path.join(cloned_course_top, "autograder")) == 0o755
    assert mode(os.path.join(cloned_course_top, "gradlessons")) == 0o755


def test_the_rest_of_a_passed_through_folder_is_closed(cloned_course_top):
    os.chmod(os.path.join(cloned_course_top, "hub", "roster.toml"), 0o644)
    CourseFolder(cloned_course_top).close()
    assert mode(os.path.join(cloned_course_top, "hub", "roster.toml")) == 0o640


def test_an_environment_inside_the_course_folder_stays_open(cloned_course_top, monkeypatch):
    os.makedirs(os.path.join(cloned_course_top, ".venv", "bin"))
    os.chmod(os.path.join(cloned_course_top, ".venv"), 0o755)
    monkeypatch.setattr(course_folder.sys, "prefix", os.path.join(cloned_course_top, ".venv"))
    CourseFolder(cloned_course_top).close()
    assert mode(os.path.join(cloned_course_top, ".venv")) == 0o755


def test_a_link_at_the_top_is_not_followed(cloned_course_top):
    outside = os.path.join(os.path.dirname(cloned_course_top), "outside.txt")
    with open(outside, "w") as f:
        f.write("not the course's\n")
    os.chmod(outside, 0o644)
    os.symlink(outside, os.path.join(cloned_course_top, "grades.csv"))
    assert CourseFolder(cloned_course_top).close() == []
    assert mode(outside) == 0o644


def test_a_folder_no_other_account_can_reach_is_left_as_it_is(cloned_course_top):
    made_under_umask(os.path.join(cloned_course_top, "gradebook.db"), 0o000)
    os.chmod(os.path.dirname(cloned_course_top), 0o700)
    assert not reachable_by_others(cloned_course_top)
    assert CourseFolder(cloned_course_top).close() == []
    assert mode(os.path.join(cloned_course_top, "gradebook.db")) == 0o666


def test_an_entry_this_account_may_not_change_stops_and_names_the_fix(cloned_course_top, monkeypatch):
    made_under_umask(os.path.join(cloned_course_top, "gradebook.db"), 0o022)
    made_under_umask(os.path.join(cloned_course_top, "grades.csv"), 0o000)
    owner = os.lstat(os.path.join(cloned_course_top, "gradebook.db")).st_uid
    # This account is someone else than the files' owner, and not root.
    monkeypatch.setattr(course_folder.os, "geteuid", lambda: owner + 4242)
    with pytest.raises(CourseFolderOpen) as raised:
        CourseFolder(cloned_course_top).close()
    message = str(raised.value)
    assert "gradebook.db is open to every account (-rw-r--r--)" in message
    assert "grades.csv is open to every account (-rw-rw-rw-)" in message
    assert f"chmod o-rwx {cloned_course_top}/gradebook.db {cloned_course_top}/grades.csv" in message
    assert mode(os.path.join(cloned_course_top, "gradebook.db")) == 0o644  # nothing changed behind its back


def test_the_autograde_hook_says_what_it_cannot_close_instead_of_raising(cloned_course_top, monkeypatch, capsys):
    made_under_umask(os.path.join(cloned_course_top, "gradebook.db"), 0o022)
    owner = os.lstat(os.path.join(cloned_course_top, "gradebook.db")).st_uid
    monkeypatch.setattr(course_folder.os, "geteuid", lambda: owner + 4242)
    keep_closed(cloned_course_top, assignment="lesson1_requires_grad", student="ada", notebooks=[])
    err = capsys.readouterr().err
    assert err.startswith("autograder: error: the course folder") and "chmod o-rwx" in err


def test_the_autograde_hook_closes_and_says_so(cloned_course_top, capsys):
    made_under_umask(os.path.join(cloned_course_top, "gradebook.db"), 0o000)
    keep_closed(cloned_course_top, assignment="lesson1_requires_grad", student="ada", notebooks=[])
    assert mode(os.path.join(cloned_course_top, "gradebook.db")) == 0o660
    assert "autograder: closed gradebook.db" in capsys.readouterr().err
