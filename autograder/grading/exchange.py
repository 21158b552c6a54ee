"""Collecting from nbgrader's exchange so that a submission carries its owner and the server's time.

nbgrader's exchange is a folder every account writes into: ``nbgrader submit`` copies a student's
folder to ``inbound/<student id>+<assignment>+<timestamp>+<random>`` with a ``timestamp.txt``, and
``nbgrader collect`` copies the latest one of each student id into ``submitted/``.  The student id
and both timestamps are written by the submitter: ``nbgrader submit
--CourseDirectory.student_id=student2`` from student1's account is collected as student2's work
(nbgrader's ``check_owner`` only logs a warning), and a late submission may claim an early time.
Collect runs as the grader account and follows links, so a link left in a submission copies what
the grader can read and the student cannot (the solutions, another student's work); it also keeps
the submitter's modes (a 0777 folder, a set-user-id file, now owned by the grader).

``OwnerCheckedCollect`` is nbgrader's collect (``c.ExchangeFactory.collect``, set in
nbgrader_config.py) with these changes, each job in a class of its own:

* ``SubmissionOwner``: an inbound folder is collected only if it and everything in it belong to
  the account named by its student id (looked up with ``pwd``; an unknown name is refused too) and
  hold only folders and regular files.  Anything else is refused: not copied into ``submitted/``,
  said in collect's log (the formgrader shows it), and kept by ``RefusalRecord`` as a JSON file
  under ``.autograder/refused-submissions/`` in the course folder, named by the sha256 of the
  inbound folder's name (which is kept inside): a name is whatever the submitter chose, up to the
  file system's 255 bytes, and the record's own name must not fail where the folder's did not.
  Nothing is deleted from the exchange: the instructor decides.
* each inbound folder is judged and copied on its own: whatever goes wrong with one (an error of
  any kind, a record that cannot be written) leaves it out, and collect goes on with the others;
  every folder left out is listed at the end of collect's output, its name escaped and shortened
  (``shown``), so one student's folder cannot stop the class's collect, ``--student`` or not.
* ``ServerTime``: the submission time is the latest status change (ctime) of the folder and of
  everything in it.  The kernel sets a ctime on every write, rename, chmod or chown and no
  account can set one back, so it is never earlier than the submission's last change (a student
  who edits the submission after the due date makes it late).  It chooses which submission is
  collected (the latest; with ``--before-duedate``, the latest before the due date) and is
  written as the collected ``timestamp.txt``, which nbgrader's autograde stores in the gradebook
  and compares with the due date for late penalties.  The submitter's claims are only logged.
* the copy is made from the folder opened once without following links (so swapping it for a
  link after the check copies nothing), never follows a link inside it, refuses the folder if
  it changed while it was copied, gives every copied file and folder the modes set here, and runs
  under umask 077.
"""

from __future__ import annotations

import datetime
import glob
import hashlib
import json
import os
import pwd
import shutil
import stat
import tempfile
from collections import defaultdict
from collections.abc import Iterator

from dateutil.tz import gettz
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.utils import check_mode, ignore_patterns, parse_utc
from traitlets import Integer, Unicode

from ..host.folders import trusted_folder
from .terminal import terminal_safe

REFUSALS = os.path.join(".autograder", "refused-submissions")
_OPEN_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def open_folder(path: str, dir_fd: int | None = None) -> int:
    """A descriptor of the folder at ``path``; OSError if it is a link or not a folder."""
    return os.open(path, _OPEN_FOLDER, dir_fd=dir_fd)


def entries(fd: int, prefix: str = ".") -> Iterator[tuple[str, os.stat_result]]:
    """The folder open at ``fd`` and everything below it, each with its own status (a link is
    reported, never followed), by path relative to the folder.  OSError on what cannot be read,
    RecursionError on folders nested deeper than Python recurses."""
    if prefix == ".":
        yield ".", os.fstat(fd)
    with os.scandir(fd) as listing:
        found = [(entry.name, entry.stat(follow_symlinks=False)) for entry in listing]
    for name, status in found:
        path = os.path.normpath(os.path.join(prefix, name))
        yield path, status
        if stat.S_ISDIR(status.st_mode):
            child = open_folder(name, dir_fd=fd)  # fails if the folder became a link since the listing
            try:
                yield from entries(child, path)
            finally:
                os.close(child)


def shown(name: str, limit: int = 100) -> str:
    """A name a student chose (an inbound folder's, a file's in an LMS download) as the instructor's
    terminal may show it: control characters escaped (``terminal_safe``), cut to ``limit`` characters."""
    safe = terminal_safe(name)
    return safe if len(safe) <= limit else safe[: limit - 1] + "…"


def account_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


class SubmissionOwner:
    """Whose a submission is: the account named by its student id, owner of all of it."""

    def problems(self, fd: int, student_id: str) -> list[str]:
        """Why the folder open at ``fd`` is not ``student_id``'s own submission ([] if it is)."""
        try:
            uid = pwd.getpwnam(student_id).pw_uid
        except KeyError:
            return [f"there is no account named {student_id!r}"]
        found = []
        try:
            for path, status in entries(fd):
                kind = self._kind(status.st_mode)
                if kind:
                    found.append(f"{path} is {kind}")
                if status.st_uid != uid:
                    found.append(f"{path} belongs to {account_name(status.st_uid)}, not {student_id}")
        except OSError as error:
            found.append(f"it cannot be read to the end ({error.strerror})")
        except RecursionError:
            found.append("its folders are nested too deeply to be read")
        return found

    @staticmethod
    def _kind(mode: int) -> str | None:
        """What an entry is when it is neither a folder nor a regular file: a link would make the
        grader copy what it points at, a FIFO would stall the copy."""
        if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
            return None
        return "a link" if stat.S_ISLNK(mode) else "not a regular file"


class ServerTime:
    """When a submission last changed, by the server's clock: the latest ctime in it."""

    def of(self, fd: int) -> datetime.datetime:
        latest = max(status.st_ctime_ns for _, status in entries(fd))
        return datetime.datetime.fromtimestamp(latest / 1e9, datetime.timezone.utc)


class RefusalRecord:
    """A refused submission, kept for the instructor: one JSON file per inbound folder (a later
    collect rewrites it), named by the sha256 of the folder's name, which it holds as
    ``inbound_name``; readable by the grader account only, in a folder made or checked as the
    grader's own (``sandbox.folders``)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    @staticmethod
    def file_name(inbound_name: str) -> str:
        return hashlib.sha256(inbound_name.encode("utf-8", "surrogateescape")).hexdigest() + ".json"

    def write(self, inbound_name: str, record: dict) -> str:
        os.makedirs(os.path.dirname(os.path.abspath(self.folder)), mode=0o700, exist_ok=True)  # .autograder
        trusted_folder(self.folder)  # and its parent, which no other account may write unless sticky
        path = os.path.join(self.folder, self.file_name(inbound_name))
        record = {**record, "inbound_name": inbound_name}
        handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".refusal-", suffix=".tmp")  # mode 0600
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=1, sort_keys=True)
        os.replace(temporary, path)
        return path


class OwnerCheckedCollect(ExchangeCollect):
    """nbgrader's collect, for an exchange shared by many accounts: only a student's own
    submissions, timed by the server, copied without following links, with private modes."""

    umask = Integer(
        0o077,
        help="The umask while collecting: what collect creates (submitted/ folders, refusal records) "
        "is the grader account's only, unless a mode below says otherwise.",
    ).tag(config=True)

    folder_mode = Integer(
        0o700,
        help="Mode of every collected folder, whatever it had in the exchange (a submitted folder there "
        "is 0777).  0o750 lets the course folder's group (hub/install.py's instructors' group) read too.",
    ).tag(config=True)

    file_mode = Integer(
        0o600,
        help="Mode of every collected file: no execute, set-user-id or set-group-id bit survives from "
        "the exchange.  0o640 lets the course folder's group read too.",
    ).tag(config=True)

    refusals_directory = Unicode(
        "",
        help="Where refused submissions are recorded, one JSON file per inbound folder "
        "(default: .autograder/refused-submissions/ in the course folder).",
    ).tag(config=True)

    claimed_time_tolerance = Integer(
        300,
        help="Seconds by which a submission's own timestamp (its folder name, its timestamp.txt) may "
        "precede the server's time before collect logs the difference as a warning (nbgrader submit "
        "writes its timestamp before it copies the files).",
    ).tag(config=True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.left_out: list[tuple[str, str]] = []  # (inbound folder's name, why), listed at the end

    def start(self):
        self.left_out = []
        previous = os.umask(self.umask)
        try:
            return super().start()
        finally:
            os.umask(previous)
            self._list_left_out()

    def _list_left_out(self) -> None:
        """Every inbound folder left out, at the end of the output where the instructor sees it."""
        if not self.left_out:
            return
        lines = [f"  {shown(name)}: {shown(why, 300)}" for name, why in self.left_out]
        self.log.warning(
            "Not collected: %d inbound folder(s) of %s (they stay in the exchange; records in %s):\n%s",
            len(self.left_out), self.coursedir.assignment_id, self.refusals.folder, "\n".join(lines),
        )  # fmt: skip

    def copy_files(self):
        """nbgrader's copy, one submission at a time: whatever goes wrong with one is said, listed
        at the end, and does not stop the others."""
        records = self.src_records
        try:
            for record in records or [None]:
                self.src_records = [record] if record else []
                try:
                    super().copy_files()
                except Exception as error:  # noqa: BLE001 - one student's folder, not the class's collect
                    self._cannot_handle(record["filename"], "collecting it", error)
        finally:
            self.src_records = records

    def _cannot_handle(self, name: str, doing: str, error: BaseException) -> None:
        why = f"an error while {doing}: {type(error).__name__}: {error}"
        self.log.error("Left out the inbound folder %s: %s", shown(name), shown(why, 300))
        self.left_out.append((name, why))

    @property
    def refusals(self) -> RefusalRecord:
        return RefusalRecord(self.refusals_directory or os.path.join(self.coursedir.root, REFUSALS))

    def _path_to_record(self, path):
        """nbgrader's reading of an inbound folder's name (student id, claimed time), without
        failing on a name that does not parse: the time that counts is the server's."""
        filename = os.path.basename(path)
        parts = filename.rsplit("+", 3)
        claimed = _parse(parts[2]) if len(parts) > 2 else None
        return {"username": parts[0], "filename": filename, "claimed_timestamp": claimed}

    def init_src(self):
        """nbgrader 0.9.6's ``init_src``, choosing among the submissions that pass the owner check,
        by the server's time."""
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        student_id = self.coursedir.student_id or "*"
        pattern = os.path.join(self.inbound_path, f"{student_id}+{self.coursedir.assignment_id}+*")
        self.records = {path: self._path_to_record(path) for path in sorted(glob.glob(pattern))}
        accepted = defaultdict(list)
        for path, record in self.records.items():
            try:
                taken = self._judge(path, record)
            except Exception as error:  # noqa: BLE001 - judged on its own: one folder never stops collect
                self._cannot_handle(record["filename"], "judging it", error)
                continue
            if taken:
                accepted[record["username"]].append(record)

        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                self.duedate = gb.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                self.duedate = None
        self.src_records = [self._choose(records) for records in accepted.values()]

    def _choose(self, records: list[dict]) -> dict:
        """nbgrader's rule: the latest submission; with before_duedate and a due date, the latest
        one before it, or the latest of all when none was."""
        records = self._sort_by_timestamp(records)
        if self.duedate is not None and self.before_duedate:
            on_time = [record for record in records if record["timestamp"] <= self.duedate]
            return (on_time or records)[0]
        return records[0]

    def _judge(self, path: str, record: dict) -> bool:
        """Whether the inbound folder is its student id's own; its server time into ``record``."""
        try:
            fd = open_folder(path)
        except OSError as error:
            return self._refuse(path, record, [f"it is not a folder that can be opened ({error.strerror})"])
        try:
            problems = SubmissionOwner().problems(fd, record["username"])
            if not problems:
                record["timestamp"] = ServerTime().of(fd).replace(tzinfo=None)  # naive UTC, as nbgrader's
        except (OSError, RecursionError) as error:
            problems = [f"it cannot be read ({error})"]
        finally:
            os.close(fd)
        return not problems or self._refuse(path, record, problems)

    def _refuse(self, path: str, record: dict, problems: list[str]) -> bool:
        """Say it in collect's log and keep it in a record; always False (not collected)."""
        student, name = record["username"], record["filename"]
        claimed = record["claimed_timestamp"]
        self.left_out.append((name, "; ".join(problems[:5])))
        try:
            kept = self.refusals.write(
                name,
                {
                    "course": self.coursedir.course_id,
                    "assignment": self.coursedir.assignment_id,
                    "student_id": student,
                    "inbound": path,
                    "problems": problems,
                    "claimed_time": claimed.isoformat() if claimed else None,
                    "refused_at": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                    "refused_by": account_name(os.geteuid()),
                },
            )
        except OSError as error:  # the refusal stands; only its record is missing, and the log says so
            kept = f"no record ({error})"
        self.log.error(
            "Refused %s's submission of %s (%s): %s. Not collected; it stays in the exchange; noted in %s",
            shown(student), self.coursedir.assignment_id, shown(name), shown("; ".join(problems[:5]), 500), kept,
        )  # fmt: skip
        return False

    def do_copy(self, src, dest, log=None):
        """Copy the submission from the folder opened once, with nbgrader's ignore, include and
        size rules, never following a link; refuse it if it changed on the way; then set the
        modes and write the server's time as its timestamp.txt."""
        record = self.records[src]
        try:
            fd = open_folder(src)
        except OSError as error:
            self._refuse(src, record, [f"it is no longer a folder that can be opened ({error.strerror})"])
            return
        try:
            problems, time = self._copy(fd, dest, record["username"])
        finally:
            os.close(fd)
        if problems:
            shutil.rmtree(dest, ignore_errors=True)
            self._refuse(src, record, problems)
            return
        for path, status in entries_of(dest):
            os.chmod(path, self.folder_mode if stat.S_ISDIR(status.st_mode) else self.file_mode)
        timestamp = os.path.join(dest, "timestamp.txt")
        claims = [record["claimed_timestamp"], _parse(_read(timestamp))]
        with open(timestamp, "w") as f:
            f.write(time.astimezone(gettz(self.timezone)).strftime(self.timestamp_format))
        os.chmod(timestamp, self.file_mode)
        self._log_time(record["username"], time, claims)

    def _copy(self, fd: int, dest: str, student_id: str) -> tuple[list[str], datetime.datetime | None]:
        """(problems, server time) of copying the folder open at ``fd`` to ``dest``."""
        try:
            problems = SubmissionOwner().problems(fd, student_id)
            before = None if problems else ServerTime().of(fd)
        except (OSError, RecursionError) as error:
            return [f"it cannot be read ({error})"], None
        if problems:
            return problems, None
        source = f"/proc/self/fd/{fd}"  # the folder opened above, even if its name now points elsewhere
        size, limit = self.get_size(source), 1000 * self.coursedir.max_dir_size
        if size > limit:
            return [f"its files take {size} bytes, over the limit of {limit} (CourseDirectory.max_dir_size)"], None
        ignore = ignore_patterns(exclude=self.coursedir.ignore, include=self.coursedir.include,
                                 max_file_size=self.coursedir.max_file_size, log=self.log)  # fmt: skip
        try:
            shutil.copytree(source, dest, symlinks=True, ignore=ignore)
            after = ServerTime().of(fd)
            problems = SubmissionOwner().problems(fd, student_id)
        except (OSError, RecursionError, shutil.Error) as error:
            return [f"it could not be copied ({error})"], None
        if after != before:
            problems.append("it changed while it was being collected (collect again to take it as it is now)")
        problems += [
            f"{os.path.relpath(path, dest)} became a link while it was being collected"
            for path, status in entries_of(dest)
            if stat.S_ISLNK(status.st_mode)
        ]
        return problems, after

    def _log_time(self, student_id: str, time: datetime.datetime, claims: list) -> None:
        """Log the server's time, and warn when the submitter claimed a much earlier one."""
        assignment, when = self.coursedir.assignment_id, time.isoformat(timespec="seconds")
        self.log.info("%s's submission of %s: submitted at %s (the server's time)", student_id, assignment, when)
        slack = datetime.timedelta(seconds=self.claimed_time_tolerance)
        early = [claimed for claimed in claims if claimed and claimed < time.replace(tzinfo=None) - slack]
        if early:
            self.log.warning(
                "%s's submission of %s claims to be from %s; it is recorded at %s, the server's time",
                student_id, assignment, min(early).isoformat(timespec="seconds"), when,
            )  # fmt: skip


def entries_of(folder: str) -> Iterator[tuple[str, os.stat_result]]:
    """Every entry of a folder we made ourselves, by full path, links not followed."""
    yield folder, os.lstat(folder)
    for parent, folders, files in os.walk(folder):
        for name in folders + files:
            path = os.path.join(parent, name)
            yield path, os.lstat(path)


def _read(path: str) -> str | None:
    try:
        with open(path, errors="replace") as f:
            return f.read(200).strip()
    except OSError:
        return None


def _parse(text: str | None) -> datetime.datetime | None:
    """A claimed time as nbgrader reads it (naive UTC); None when there is none or it does not parse."""
    try:
        return parse_utc(text) if text else None
    except (ValueError, OverflowError):
        return None
