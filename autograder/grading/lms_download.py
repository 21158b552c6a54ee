"""``nbgrader zip_collect ASSIGNMENT`` on a learning-management system's download: whose a file is,
read from the download's top level only.

An LMS download (Canvas's "Download Submissions", Moodle's "Download all submissions") is a zip
whose top-level names the LMS wrote: Canvas names each file ``<name>_<user id>_<submission
id>_<the student's file name>`` (``<name>_LATE_...`` when late) and, when a student uploads a file of
the same name again, adds ``-1``, ``-2``, ... before its extension; Moodle's names start with the
student's full name and participant id.  Below that top level, every name is the student's:
nbgrader's own extractor unzips archives inside the download too, and its collector matches
``named_regexp`` against the whole path, so a zip a student uploads, holding
``ada_1_2_lesson3_zeroing_grad.ipynb``, is collected as ada's work; and when ada's own file is
there too, nbgrader stops on "Duplicate submission file" and collects nobody.

nbgrader_config.py plugs two classes into ``ZipCollectApp``'s extension points:

* ``TopLevelExtractor`` (``ZipCollectApp.extractor_plugin``): each zip directly in ``archive/`` is a
  download, unpacked into ``extracted/<zip's name>/``; each other file there is copied as it is into
  ``extracted/``.  An archive inside a download (by its name or its first bytes: zip, tar, gzip,
  bzip2, xz, zstd, 7z, rar, cab, ar, cpio) is refused with its files unread, and so is a member
  whose name climbs out (``..``, absolute), a link, a second member of the same name, a member over
  the file-size limit (``SandboxLimits.file_size_mb``) or past the download's total
  (``max_download_mb``), and anything in ``archive/`` that is neither a zip nor a file.  Members are
  written with ``O_EXCL | O_NOFOLLOW``, mode 0600, in folders made here.
* ``TopLevelCollector`` (``ZipCollectApp.collector_plugin``): ``named_regexp`` is matched against
  a file's path inside its download, and the ``student_id`` it finds must lie in the first part of
  that path (the name the LMS wrote); a file whose name does not say whose it is is skipped.
  Among the files of one student for one notebook the one with the highest ``version`` (the
  regexp's optional group: Canvas's ``-1``, ``-2``) is collected; one file in two downloads (the
  same name inside each, the same bytes: the second day's download put beside the first) counts
  once; two different files with the same version (two accounts of one name) are both refused, and
  the student's other notebooks and everyone else are collected.  A notebook the assignment's release does not have
  (``lesson3_zeroing_grad_copy.ipynb``) is listed, not collected: nbgrader would copy it beside
  the missing one with a warning in mid-log, and autograde would find the student's notebook missing.

Every file refused or skipped is listed at the end of the command's output (``LeftOut``), its
name escaped and shortened (``exchange.shown``), after a line that counts what was collected and for
whom; nothing is deleted from ``archive/``.

A second ``zip_collect`` of one assignment (the LMS's new download put in ``archive/``, in place
of the first or beside it) needs ``--force``, as nbgrader's own error says: without it nbgrader stops on
"Directory not empty" before it unpacks or copies anything; with it, nbgrader empties
``extracted/`` and, for each student collected again, ``submitted/<student>/<assignment>/``, and
the students this download does not give a file keep what they had.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
import zipfile
import zlib
from collections import defaultdict
from dataclasses import dataclass, field

from nbgrader.plugins import ExtractorPlugin, FileNameCollectorPlugin
from traitlets import Integer

from .exchange import shown
from .intake import configured_limits
from .terminal import terminal_safe

# Archives by the end of their name, and by their first bytes (offset, magic) when the name hides them.
ARCHIVE_SUFFIXES = (".zip", ".tar", ".gz", ".tgz", ".bz2", ".tbz", ".tbz2", ".xz", ".txz", ".zst", ".lz",
                    ".lzma", ".7z", ".rar", ".cab", ".ar", ".cpio", ".jar", ".whl", ".egg", ".z")  # fmt: skip
ARCHIVE_MAGIC = (
    (0, b"PK\x03\x04"), (0, b"PK\x05\x06"), (0, b"PK\x07\x08"),  # zip (and jar, whl, docx...)
    (0, b"\x1f\x8b"), (0, b"\x1f\x9d"), (0, b"BZh"), (0, b"\xfd7zXZ\x00"), (0, b"\x28\xb5\x2f\xfd"),  # gzip ... zstd
    (0, b"LZIP"), (0, b"7z\xbc\xaf\x27\x1c"), (0, b"Rar!\x1a\x07"), (0, b"MSCF"), (0, b"!<arch>\n"),
    (0, b"070701"), (0, b"070702"), (0, b"070707"), (257, b"ustar"),  # cpio, tar
)  # fmt: skip
# What reading one member of a zip can raise: a broken or lying member, an unknown compression, a
# password (RuntimeError), a bad header (ValueError).
UNREADABLE = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, ValueError)
HEAD = 512  # bytes read to know what a file is
CHUNK = 1 << 20


def is_archive(name: str, head: bytes) -> bool:
    """Whether a file called ``name`` that starts with ``head`` is an archive of any kind."""
    return name.lower().endswith(ARCHIVE_SUFFIXES) or any(
        head[offset : offset + len(magic)] == magic for offset, magic in ARCHIVE_MAGIC
    )


# nbgrader's ZipCollectApp, of each file its collector plugin declines.
STOCK_SKIP = "Skipped submission with no match information provided: "


@dataclass
class LeftOut:
    """The files zip_collect refuses or skips, with why, listed once at the end of its output.

    nbgrader's ``ZipCollectApp`` has no step after it copies the files, and ``zip_collect`` is one of
    nbgrader's own commands, so the list is attached to the running app and printed when its last
    step (``process_extracted_files``) returns or fails."""

    entries: list[tuple[str, str]] = field(default_factory=list)
    collected: dict[str, int] = field(default_factory=dict)  # student id -> files the collector gave nbgrader

    def add(self, what: str, why: str, log) -> None:
        self.entries.append((what, why))
        # Said where it happens only with --debug: the list at the end says each file once, with its reason.
        log.debug("Not collected: %s: %s", shown(what), why)

    def said(self, record: logging.LogRecord) -> bool:
        """False for nbgrader's own "Skipped submission with no match information provided: <path>" about
        a file this list names with its reason (nbgrader says it of every file its collector declines)."""
        message = record.getMessage()
        if not message.startswith(STOCK_SKIP):
            return True
        path = message[len(STOCK_SKIP) :]
        return not any(path.endswith(os.sep + what) or path == what for what, _ in self.entries)

    def report(self, log, finished: bool = True) -> None:
        """The run's last lines: what was collected, then each file left out with its reason."""
        if finished:
            students = ", ".join(shown(student) for student in sorted(self.collected))
            head = (f"zip_collect collected {sum(self.collected.values())} file(s) of {len(self.collected)} "
                    f"student(s){': ' + students if students else ''}")  # fmt: skip
        else:
            head = "zip_collect stopped before it copied every file (the error is above)"
        if self.entries:
            lines = "\n".join(f"  {shown(what)}: {why}" for what, why in self.entries)
            log.warning("%s; left out %d file(s), nothing was deleted:\n%s", head, len(self.entries), lines)
        else:
            log.info(head)

    @classmethod
    def of(cls, plugin) -> LeftOut:
        """The list of the app running ``plugin`` (a list of its own when there is no app)."""
        app = plugin.parent
        if app is None:
            plugin.__dict__.setdefault("_left_out", cls())
            return plugin.__dict__["_left_out"]
        found = app.__dict__.get("_autograder_left_out")
        if found is None:
            found = app.__dict__["_autograder_left_out"] = cls()
            last_step = app.process_extracted_files

            def then_list():
                finished = False
                try:
                    last_step()
                    finished = True
                finally:
                    found.report(app.log, finished)

            app.process_extracted_files = then_list
            app.log.addFilter(found.said)
        return found


def _safe_parts(name: str) -> list[str] | None:
    """The parts of a member's name, or None when it is absolute or climbs out (``..``)."""
    if name.startswith("/") or "\0" in name:
        return None
    parts = [part for part in name.split("/") if part not in ("", ".")]
    return None if not parts or ".." in parts else parts


class TopLevelExtractor(ExtractorPlugin):
    """Unpacks each zip directly in ``archive/`` (an LMS download) and copies the other files there;
    never what is inside a download's archives (see the module docstring)."""

    max_download_mb = Integer(
        4096, help="Most megabytes one download may unpack to; members past it are refused and listed."
    ).tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        LeftOut.of(self)  # listed at the end of the app's last step, which must not have started yet

    def extract(self, archive_path: str, extracted_path: str) -> None:
        left_out = LeftOut.of(self)
        limits = configured_limits()
        try:
            listing = sorted(os.scandir(archive_path), key=lambda entry: entry.name)
        except OSError as error:
            self.log.warning("Nothing to unpack in %s: %s", archive_path, error.strerror)
            return
        for entry in listing:
            if entry.is_symlink():
                left_out.add(entry.name, "a link in archive/: put the file itself there", self.log)
            elif entry.is_dir(follow_symlinks=False):
                left_out.add(entry.name, "a folder in archive/: put the LMS's download (its zip) there", self.log)
            elif not entry.is_file(follow_symlinks=False):
                left_out.add(entry.name, "not a regular file", self.log)
            else:
                self._one(entry.path, entry.name, extracted_path, limits.file_size_bytes, left_out)

    def _one(self, path: str, name: str, extracted: str, limit: int, left_out: LeftOut) -> None:
        try:
            source = open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb")  # noqa: SIM115 - closed below
        except OSError as error:
            left_out.add(name, f"cannot be read ({error.strerror})", self.log)
            return
        with source:
            head = source.read(HEAD)
            source.seek(0)
            if zipfile.is_zipfile(source):
                self.log.info("Unpacking the download %s", shown(name))
                self._unzip(source, name, os.path.join(extracted, name), limit, left_out)
            elif is_archive(name, head):
                left_out.add(name, "an archive that is not a zip: unpack it and put its files in archive/", self.log)
            else:
                self._write(source, name, extracted, [name], limit, left_out)

    def _unzip(self, source, name: str, into: str, limit: int, left_out: LeftOut) -> None:
        try:
            download = zipfile.ZipFile(source)
        except (zipfile.BadZipFile, OSError) as error:
            left_out.add(name, f"a zip that cannot be read ({error})", self.log)
            return
        try:
            os.mkdir(into, 0o700)
        except OSError as error:
            left_out.add(name, f"cannot be unpacked into {shown(into)} ({error.strerror})", self.log)
            return
        room = self.max_download_mb * 2**20
        with download:
            for member in download.infolist():
                what = f"{name}/{member.filename}"
                parts = _safe_parts(member.filename)
                if member.is_dir():
                    continue
                if parts is None:
                    left_out.add(what, "a name that is absolute or climbs out of the download", self.log)
                elif stat.S_ISLNK(member.external_attr >> 16):
                    left_out.add(what, "a link", self.log)
                elif member.file_size > limit:
                    left_out.add(what, f"larger than {limit // 2**20} MiB", self.log)
                elif member.file_size > room:
                    left_out.add(what, f"past the {self.max_download_mb} MiB a download may unpack to", self.log)
                else:
                    try:
                        with download.open(member) as content:
                            room -= self._write(content, what, into, parts, limit, left_out)
                    except UNREADABLE as error:
                        left_out.add(what, f"cannot be unpacked ({error})", self.log)

    def _write(self, content, what: str, into: str, parts: list[str], limit: int, left_out: LeftOut) -> int:
        """Copy ``content`` to ``into/parts`` unless it is an archive; the bytes written."""
        head = content.read(HEAD)
        if is_archive(parts[-1], head):
            left_out.add(what, "an archive inside the download: its files are not collected, since only the "
                         "LMS's own names at the download's top level say whose a file is", self.log)  # fmt: skip
            return 0
        target = os.path.join(into, *parts)
        try:
            os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            left_out.add(what, "a second file of the same name in the download", self.log)
            return 0
        except OSError as error:
            left_out.add(what, f"cannot be written ({error.strerror})", self.log)
            return 0
        written = 0
        with open(fd, "wb") as out:
            chunk = head
            while chunk:
                written += len(chunk)
                if written > limit:
                    break
                out.write(chunk)
                chunk = content.read(CHUNK)
        if written > limit:
            os.remove(target)
            left_out.add(what, f"larger than {limit // 2**20} MiB", self.log)
            return 0
        return written


@dataclass(frozen=True)
class Candidate:
    path: str
    shown_as: str
    student: str
    notebook: str
    version: int
    name: str  # inside its download: the LMS's name, which says whose it is and which upload

    def same_file(self) -> tuple[str, str]:
        """What makes two candidates one file: its name inside the download and its bytes."""
        with open(self.path, "rb") as f:
            return self.name, hashlib.sha256(f.read()).hexdigest()  # at most SandboxLimits.file_size_mb


class TopLevelCollector(FileNameCollectorPlugin):
    """nbgrader's collector, with the student id read from the download's top level only, and one
    file per student and notebook decided before nbgrader sees any (see the module docstring)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        LeftOut.of(self)

    def collect(self, submitted_file: str) -> dict | None:
        if "_decided" not in self.__dict__:
            self._decided = self.decide(self._extracted(), self._files(), self._released())
        return self._decided.get(submitted_file)

    def _extracted(self) -> str:
        return self.parent._format_collect_path(self.parent.extracted_directory)

    def _released(self) -> set[str] | None:
        """The notebooks of the assignment's release (None when it has none: nbgrader warns of that)."""
        from nbgrader.utils import find_all_notebooks

        coursedir = self.parent.coursedir
        release = coursedir.format_path(coursedir.release_directory, ".", coursedir.assignment_id)
        return set(find_all_notebooks(release)) or None

    def _files(self) -> list[str]:
        """Every file nbgrader will ask about, as nbgrader lists them."""
        found = []
        for top, _, files in os.walk(self._extracted()):
            found += [os.path.join(top, name) for name in files]
        return sorted(found)

    def decide(self, extracted: str, files: list[str], released: set[str] | None = None) -> dict[str, dict]:
        """path -> nbgrader's collect info, for the files to collect; the others are listed.
        ``released``: the assignment's notebooks (None: any name the regexp takes)."""
        left_out = LeftOut.of(self)
        pattern = re.compile(self.named_regexp)
        candidates = defaultdict(list)
        for path in files:
            found = self._candidate(pattern, extracted, path, left_out)
            if found and released is not None and found.notebook not in released:
                has = ", ".join(sorted(released))
                why = f"not a notebook of this assignment (its release has {has}): copy it to archive/ under that name"
                left_out.add(found.shown_as, why, self.log)
            elif found:
                candidates[(found.student, found.notebook)].append(found)
        decided = {}
        for (student, notebook), found in sorted(candidates.items()):
            latest = max(candidate.version for candidate in found)
            kept = [candidate for candidate in found if candidate.version == latest]
            if len(kept) > 1 and len({candidate.same_file() for candidate in kept}) == 1:
                for copy in kept[1:]:
                    left_out.add(copy.shown_as, f"the same file as {shown(kept[0].shown_as)} (the same name "
                                 "and bytes, in another download), which is collected", self.log)  # fmt: skip
                kept = kept[:1]
            if len(kept) > 1:
                names = " and ".join(shown(candidate.shown_as) for candidate in kept)
                why = f"one of {len(kept)} files for {shown(student)}'s {notebook} ({names}): none is collected"
                for candidate in kept:
                    left_out.add(candidate.shown_as, f"{why}; put the right one alone in archive/", self.log)
            else:
                decided[kept[0].path] = {"student_id": student, "file_id": notebook}
                left_out.collected[student] = left_out.collected.get(student, 0) + 1
            for candidate in found:
                if candidate.version < latest:
                    left_out.add(candidate.shown_as, f"an earlier upload of {shown(student)}'s {notebook}: "
                                 "the latest (the highest -N) is collected", self.log)  # fmt: skip
        return decided

    def _candidate(self, pattern: re.Pattern, extracted: str, path: str, left_out: LeftOut) -> Candidate | None:
        relative = os.path.relpath(path, extracted).split(os.sep)
        inside = relative if len(relative) == 1 else relative[1:]  # the path inside its download
        what, name = "/".join(relative), "/".join(inside)
        extension = os.path.splitext(path)[1]
        if extension not in self.valid_ext:
            left_out.add(what, f"not a {' or '.join(self.valid_ext)} file", self.log)
            return None
        match = pattern.match(name)
        if not match or "student_id" not in pattern.groupindex or "file_id" not in pattern.groupindex:
            left_out.add(what, "its name does not say whose it is (FileNameCollectorPlugin.named_regexp)", self.log)
            return None
        student = match["student_id"] or ""
        if match.end("student_id") > len(inside[0]):
            left_out.add(what, "a student id below the download's top level, where the names are the students'",
                         self.log)  # fmt: skip
            return None
        if not student or student.startswith(".") or terminal_safe(student) != student or os.sep in student:
            left_out.add(what, f"{shown(student)!r} cannot be a student id", self.log)
            return None
        version = match.groupdict().get("version")
        notebook = os.path.splitext(match["file_id"])[0] + extension
        return Candidate(path, what, student, notebook, int(version) if version else 0, name)
