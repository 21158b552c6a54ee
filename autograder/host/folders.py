"""Folders the grader trusts: made by root or the grader, checked, never taken as found.

The grader keeps state in folders it later opens by name: the user-id locks of sandboxed jobs
(``client.UidPool``), the servers' scratch space, the course's ``.autograder/`` (grading locks,
claims, refused submissions).  A folder that some other account made first, in a place every
account can write (``/run/lock``, ``/tmp``, ``/var/tmp``), is that account's: it can fill it with
lock files (refusing every grading job), remove the grader's, or swap it for a link.  So
``trusted_folder`` makes the folder when it is missing and then, made now or found, opens it
without following a link and accepts it only when:

* it is a folder, not a link to one (``O_NOFOLLOW | O_DIRECTORY``, then ``fstat`` of what was
  opened, so a swap between the check and the use is seen);
* it belongs to the account running the grader or to root;
* no other account may write into it (no group or other write bit: a sticky bit does not help
  here, since anyone could still add files of their own);
* its parent cannot have it renamed away by another account: the parent is owned by root or the
  grader and is either not writable by others or sticky (``/tmp`` and ``/run/lock`` are).

Anything else raises ``UntrustedFolder``, whose message names the folder, its owner and mode, and
what to do; nothing is repaired in place, since a folder another account made may hold anything.
"""

from __future__ import annotations

import os
import pwd
import stat

_OPEN = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


class UntrustedFolder(OSError):
    """A folder the grader would trust is not the grader's own (see the module docstring)."""


def account(uid: int) -> str:
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def _trusted_owner(uid: int) -> bool:
    return uid in (0, os.geteuid())


def _refusal(path: str, why: str) -> UntrustedFolder:
    makers = "root" if os.geteuid() == 0 else f"root or {account(os.geteuid())}"
    return UntrustedFolder(
        f"{path} {why}. The grader keeps its own state there and trusts only a folder made by {makers}, "
        f"writable by no one else: remove it (as root: rm -r -- {path}) and run the command again."
    )


def check_parent(path: str) -> None:
    """UntrustedFolder unless only root or the grader can rename entries of ``path`` (see above)."""
    try:
        status = os.stat(path)  # the parent may be reached through links (/var/run -> /run): it is judged itself
    except OSError as error:
        raise UntrustedFolder(f"{path} cannot be used: {error.strerror}") from None
    if not stat.S_ISDIR(status.st_mode):
        raise _refusal(path, "is not a folder")
    others_write = status.st_mode & 0o022
    if not _trusted_owner(status.st_uid) or (others_write and not status.st_mode & stat.S_ISVTX):
        raise _refusal(
            path,
            f"belongs to {account(status.st_uid)} with mode {stat.S_IMODE(status.st_mode):04o}, so another "
            "account could move what the grader keeps in it",
        )


def check_folder(fd: int, path: str) -> os.stat_result:
    """The status of the folder open at ``fd``; UntrustedFolder unless it is the grader's own."""
    status = os.fstat(fd)
    if not stat.S_ISDIR(status.st_mode):
        raise _refusal(path, "is not a folder")
    if not _trusted_owner(status.st_uid):
        raise _refusal(path, f"was made by {account(status.st_uid)}, not by root or the grader")
    if status.st_mode & 0o022:
        raise _refusal(path, f"is writable by other accounts (mode {stat.S_IMODE(status.st_mode):04o})")
    return status


def open_trusted_folder(path: str, mode: int = 0o700) -> int:
    """A descriptor of the folder ``path``, made (with ``mode``) if missing, checked either way."""
    path = os.path.abspath(path)
    parent, name = os.path.split(path)
    check_parent(parent)
    parent_fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            os.mkdir(name, mode, dir_fd=parent_fd)
        except FileExistsError:
            pass
        except OSError as error:
            raise UntrustedFolder(f"{path} cannot be made: {error.strerror}") from None
        try:
            fd = os.open(name, _OPEN, dir_fd=parent_fd)
        except OSError as error:
            why = "is a link" if os.path.islink(path) else f"cannot be opened as a folder ({error.strerror})"
            raise _refusal(path, why) from None
    finally:
        os.close(parent_fd)
    try:
        check_folder(fd, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def trusted_folder(path: str, mode: int = 0o700) -> str:
    """``path``, made if missing and checked (``open_trusted_folder``); for folders then used by name,
    which is safe since neither it nor its parent can be replaced by another account."""
    os.close(open_trusted_folder(path, mode))
    return path


def trusted_folders(top: str, *below: str, mode: int = 0o700) -> str:
    """``top`` and each folder ``below`` it in turn (``trusted_folders(course, ".autograder",
    "claims", assignment)``), each made if missing and checked; the last one's path."""
    path = trusted_folder(top, mode)
    for name in below:
        path = trusted_folder(os.path.join(path, name), mode)
    return path
