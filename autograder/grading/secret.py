"""The course secret, and the hidden checks' seeds derived from it.

The hidden test cells are public: the repository that holds the lessons holds them, with the seed
each hidden check is written with (``check_train_step(train_step, seed=11)``), and every scenario
a seed builds can be rebuilt by anyone from ``gradebox.exercises``.  A submission could then do
the right thing only on the published hidden cases.  So, while grading, every check inside a test
cell's hidden block runs with a seed of its own, derived from a secret that only the grader knows:

    HMAC-SHA256(secret, "<assignment>/<notebook>:<grade id>:<index of the check in the cell>:<written seed>")

read as a number in ``[1, SEED_RANGE)``.  Every exercise's ``suite(start, seed)`` takes such a
seed: the largest multiplier in a suite is ``1000 * seed`` (plus a few thousand), which stays far
below torch's ``manual_seed`` limit of 2**63 and below 2**53 (exact even as a float); 2**40
seeds leave nothing to search through.  The same secret gives the same seeds, so a rerun gives
the same scores; another course's secret gives other cases.  Visible checks keep their written
seed: the student's self-check and the grader agree on them.

The secret itself never leaves the grader's process: a job gets only the derived seed it runs
(it must build its scenarios from it), and nothing of it is written into a graded notebook, the
feedback, the gradebook or a log (``ScoreChecks`` keeps no derived seed in the notebook either).

Where it lives: ``.autograder/course-secret`` in the course folder, made by the first grading
that needs it, or the file that ``c.ScoreChecks.secret_file`` (or ``AUTOGRADER_SECRET_FILE``)
names, for graders that do not share the course folder.  Either way the file is read only if it
is a regular file (not a link, opened with ``O_NOFOLLOW``), owned by the grader's account or by
root, and readable by its owner alone; anything else stops grading with a message that says
what to fix, rather than grade with a secret students may have read or written.

Two graders starting at once (shards of one class, on one machine or on several sharing the
course folder) get one secret: each writes a candidate under a private temporary name
(``O_EXCL``) and publishes it with ``link()``, which only one of them can win; the other reads the
winner's.  A reader never sees a half-written secret.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat

from ..settings import SETTINGS

#: The folder of the course where grading keeps its own records (the ledger and the locks use it too).
FOLDER = ".autograder"
#: The secret's file name in that folder.
FILE_NAME = "course-secret"
#: The environment variable (``AUTOGRADER_`` + this) that names the secret's file when the course's
#: settings do not: for grading pods that get the secret mounted rather than the course folder.
SETTING = "SECRET_FILE"
#: Derived seeds are in [1, SEED_RANGE): see the module's docstring for why this bound.
SEED_RANGE = 2**40
#: A secret shorter than this (after surrounding whitespace) is refused: a guessable one is no secret.
MIN_LENGTH = 32
#: More than this is not a secret file (a notebook, a log named by mistake).
MAX_LENGTH = 4096
#: What the grader writes when it makes the secret: 32 random bytes, as hexadecimal text.
RANDOM_BYTES = 32


class SecretError(Exception):
    """The course secret cannot be used; the message says what to fix."""


def derive_seed(secret: bytes, assignment: str, notebook: str, grade_id: str, index: int, seed: int) -> int:
    """The seed a hidden check runs with: the same for the same secret and check, in [1, SEED_RANGE)."""
    message = f"{assignment}/{notebook}:{grade_id}:{index}:{seed}".encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return 1 + int.from_bytes(digest[:8], "big") % (SEED_RANGE - 1)


def default_path(course_root: str) -> str:
    return os.path.join(course_root, FOLDER, FILE_NAME)


def configured_path() -> str:
    """``AUTOGRADER_SECRET_FILE``, or "" (the default of ``c.ScoreChecks.secret_file``)."""
    return SETTINGS.value("secret_file")


def course_secret(path: str, create: bool = True) -> bytes:
    """The secret in ``path``, made first when it is missing and ``create`` is true (the course's own
    file; a file the settings name is never made: a missing one is a mistake to report)."""
    folder, name = os.path.split(os.path.abspath(path))
    if create:
        _make_folder(folder)
    try:
        folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except FileNotFoundError:
        raise SecretError(f"The course secret's folder {folder} does not exist.") from None
    except NotADirectoryError:
        raise SecretError(f"The course secret's folder {folder} is a link or not a folder: remove it.") from None
    try:
        _check_folder(folder, os.fstat(folder_fd))
        try:
            return _read(path, name, folder_fd)
        except FileNotFoundError:
            if not create:
                raise SecretError(f"The course secret {path} does not exist (c.ScoreChecks.secret_file or "
                                  f"AUTOGRADER_{SETTING} names it).") from None  # fmt: skip
        _publish(name, folder_fd)
        return _read(path, name, folder_fd)
    finally:
        os.close(folder_fd)


def _trusted_owner(uid: int) -> bool:
    return uid in (os.geteuid(), 0)


def _make_folder(folder: str) -> None:
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except FileNotFoundError:
        raise SecretError(f"Cannot make {folder} for the course secret: its parent folder does not exist.") from None


def _check_folder(folder: str, info: os.stat_result) -> None:
    # Group bits are the instructors' (hub/install.py gives the course to their group); a folder any
    # account may write lets a student put their own file, or a link, where the secret is looked for.
    if not _trusted_owner(info.st_uid):
        raise SecretError(f"{folder} belongs to user id {info.st_uid}, not to the grader: the course secret "
                          "is not kept in a folder another account controls.")  # fmt: skip
    if info.st_mode & stat.S_IWOTH:
        raise SecretError(f"{folder} is writable by every account: run `chmod o-rwx {folder}` and grade again.")


def _read(path: str, name: str, folder_fd: int) -> bytes:
    # O_NONBLOCK: a FIFO put there opens at once (and is then refused) instead of hanging the grader.
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NOCTTY | os.O_NONBLOCK
    try:
        fd = os.open(name, flags, dir_fd=folder_fd)
    except OSError as error:
        if isinstance(error, FileNotFoundError):
            raise
        if os.path.islink(path):
            raise SecretError(f"The course secret {path} is a link: the grader reads only a file "
                              "that is there itself. Replace the link by the file.") from None  # fmt: skip
        raise SecretError(f"Cannot read the course secret {path}: {error.strerror}.") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SecretError(f"The course secret {path} is not a regular file.")
        if not _trusted_owner(info.st_uid):
            raise SecretError(f"The course secret {path} belongs to user id {info.st_uid}, not to the grader's "
                              "account or root: another account could have chosen it.")  # fmt: skip
        if info.st_mode & 0o077:
            raise SecretError(f"The course secret {path} is readable or writable by others "
                              f"({stat.filemode(info.st_mode)}): run `chmod 600 {path}`, and make a new "
                              "secret if students could have read it (see docs/instructor.md).")  # fmt: skip
        data = os.read(fd, MAX_LENGTH + 1)
    finally:
        os.close(fd)
    secret = data.strip()
    if len(data) > MAX_LENGTH or len(secret) < MIN_LENGTH:
        raise SecretError(f"The course secret {path} must hold {MIN_LENGTH} to {MAX_LENGTH} characters "
                          f"(it holds {len(secret)}{'+' if len(data) > MAX_LENGTH else ''}); make one with "
                          "`openssl rand -hex 32`.")  # fmt: skip
    return secret


def _publish(name: str, folder_fd: int) -> None:
    """A new secret under ``name``, unless another grader publishes one first (then that one stays)."""
    candidate = f".{name}.{os.getpid()}.{secrets.token_hex(8)}"
    fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=folder_fd)
    try:
        try:
            os.fchmod(fd, 0o600)  # the mode whatever the umask
            os.write(fd, secrets.token_hex(RANDOM_BYTES).encode() + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(candidate, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd, follow_symlinks=False)
        except FileExistsError:
            pass  # another grader was first: its secret is the course's
    finally:
        os.unlink(candidate, dir_fd=folder_fd)
