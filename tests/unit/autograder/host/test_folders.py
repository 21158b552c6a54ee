"""Folders the grader trusts are made by it or checked, never taken as found (autograder.host.folders):
the user-id locks of sandboxed jobs, the servers' scratch space, the course's .autograder/ locks.

A folder "made first by another account" is made here as root and given to a throwaway account
with chown, as a student with a shell on the grading machine would leave it.

Beside autograder/host/folders.py; also tries the grading locks (grading/locks.py) and the uid pool
(host/client.py) that keep their folders there."""

from __future__ import annotations

import os
import pwd
import stat
import subprocess

import pytest

from autograder.grading.course_assignment import GradeError
from autograder.grading.locks import claim, grading_lock
from autograder.host import client
from autograder.host.bwrap import SandboxError
from autograder.host.folders import UntrustedFolder, trusted_folder, trusted_folders

STUDENT = "autograder-ann"
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="gives a folder to another account (chown): needs root")


@pytest.fixture(scope="module")
def student() -> int:
    """A student's account (a system account without a home, left in place for the next run)."""
    try:
        pwd.getpwnam(STUDENT)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", STUDENT],
                       capture_output=True)  # fmt: skip
    return pwd.getpwnam(STUDENT).pw_uid


def made_by(uid: int, path: str, mode: int = 0o755) -> str:
    os.mkdir(path)
    os.chown(path, uid, uid)
    os.chmod(path, mode)
    return path


def test_a_missing_folder_is_made_private(tmp_path):
    path = trusted_folder(str(tmp_path / "locks"))
    status = os.lstat(path)
    assert stat.S_ISDIR(status.st_mode) and stat.S_IMODE(status.st_mode) == 0o700 and status.st_uid == os.geteuid()


def test_a_folder_of_our_own_is_taken_again(tmp_path):
    first = trusted_folders(str(tmp_path), ".autograder", "claims")
    assert trusted_folders(str(tmp_path), ".autograder", "claims") == first


@as_root
def test_a_folder_made_first_by_a_student_is_refused_and_named(tmp_path, student):
    taken = made_by(student, str(tmp_path / "autograder-uids"))
    with pytest.raises(UntrustedFolder) as refused:
        trusted_folder(taken)
    message = str(refused.value)
    assert taken in message and f"made by {STUDENT}" in message and f"rm -r -- {taken}" in message


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o770], ids=["world-writable", "sticky", "group-writable"])
def test_a_folder_others_can_write_into_is_refused(tmp_path, mode):
    folder = tmp_path / "locks"
    folder.mkdir()
    os.chmod(folder, mode)
    with pytest.raises(UntrustedFolder, match="writable by other accounts"):
        trusted_folder(str(folder))


def test_a_link_in_place_of_the_folder_is_refused(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "locks")
    with pytest.raises(UntrustedFolder, match="is a link"):
        trusted_folder(str(tmp_path / "locks"))


def test_a_file_in_place_of_the_folder_is_refused(tmp_path):
    (tmp_path / "locks").write_text("")
    with pytest.raises(UntrustedFolder, match="cannot be opened as a folder"):
        trusted_folder(str(tmp_path / "locks"))


def test_a_parent_anyone_can_rename_in_is_refused(tmp_path):
    """Without the sticky bit, any account could move the folder away and put its own there."""
    parent = tmp_path / "open"
    parent.mkdir()
    os.chmod(parent, 0o777)
    with pytest.raises(UntrustedFolder, match="another account could move"):
        trusted_folder(str(parent / "locks"))
    os.chmod(parent, 0o1777)  # as /tmp and /run/lock are: a folder in it stays its owner's
    assert trusted_folder(str(parent / "locks"))


# ---- the user-id locks of sandboxed jobs ---------------------------------------------------------


def test_the_uid_lock_folder_lives_where_only_root_can_make_it():
    """Not /run/lock or /tmp, which every account can write: a student cannot make it first."""
    parent = os.path.dirname(client.UID_LOCKS)
    status = os.stat(parent)
    assert status.st_uid == 0 and not status.st_mode & 0o022, f"{parent} {stat.filemode(status.st_mode)}"


@as_root
def test_a_uid_lock_folder_made_by_a_student_is_refused_clearly(tmp_path, student):
    """It could hold every id's lock (refusing every job) or remove them (two jobs with one id)."""
    taken = made_by(student, str(tmp_path / "autograder-uids"), 0o777)
    with pytest.raises(SandboxError, match=f"user-id locks: {taken} was made by {STUDENT}"):
        client.UidPool(taken, 62000, 4)
    assert os.listdir(taken) == []  # no lock file of ours left where the student could hold it


def test_pools_in_a_fresh_folder_share_no_uid(tmp_path):
    first, second = client.UidPool(str(tmp_path / "uids"), 62000, 2), client.UidPool(str(tmp_path / "uids"), 62000, 2)
    assert {first.take()[0], second.take()[0]} == {62000, 62001}


# ---- the servers' scratch space ------------------------------------------------------------------


def test_a_scratch_place_anyone_can_rename_in_is_refused(tmp_path, monkeypatch):
    open_place = tmp_path / "scratch"
    open_place.mkdir()
    os.chmod(open_place, 0o777)
    monkeypatch.setenv("AUTOGRADER_SCRATCH", str(open_place))
    with pytest.raises(SandboxError, match="scratch space: .*another account could move"):
        client.scratch_parent()
    os.chmod(open_place, 0o1777)
    assert client.scratch_parent() == str(open_place)


@as_root
def test_stale_scratch_of_another_account_is_left_alone(tmp_path, student):
    """A folder named like a server's, with a dead pid in it, is removed only when it is our own."""
    dead = 2**22 + 1  # above the largest pid Linux gives: no such process
    theirs, ours = made_by(student, str(tmp_path / "autograder-theirs")), str(tmp_path / "autograder-ours")
    os.mkdir(ours)
    for folder in (theirs, ours):
        with open(os.path.join(folder, "owner.pid"), "w") as f:
            f.write(str(dead))
    client._remove_stale_scratch(str(tmp_path))
    assert os.path.isdir(theirs) and not os.path.exists(ours)


# ---- the course's .autograder/ locks -------------------------------------------------------------


@as_root
def test_a_dot_autograder_made_by_a_student_refuses_grading_clearly(tmp_path, student):
    made_by(student, str(tmp_path / ".autograder"), 0o777)
    with pytest.raises(GradeError, match=r"\.autograder was made by autograder-ann"), grading_lock(str(tmp_path)):
        pass


def test_a_claim_for_a_255_byte_student_id_is_held(tmp_path):
    """The claim's lock file is named by a hash: a student id of any length gets one."""
    student = "s" * 255
    with claim(str(tmp_path), "lesson1_requires_grad", student) as mine:
        assert mine
        with claim(str(tmp_path), "lesson1_requires_grad", student) as again:
            assert not again
