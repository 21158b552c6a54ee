"""What a submission folder may hold: regular files of a bounded size, nothing else.

nbgrader copies a submission's files (following links) before any preprocessor runs, as the
instructor, so a link in a submission reads whatever it points at: the gradebook, the hidden tests,
another student's notebook, ``/etc/shadow``, or ``/dev/zero`` without end.  ``refuse_irregular``
is nbgrader's ``pre_convert_hook`` (nbgrader_config.py), which runs before that copy for
``nbgrader autograde`` and ``python -m autograder grade`` alike: every link, device, FIFO or socket,
every file over the size limit, and anything past the folder's total, is moved out of the
submission into ``submitted/<student>/.refused/<assignment>/`` (nothing is deleted), and listed in
``refused.json`` there.  A refused notebook is replaced by a short note, which the notebook
exporter grades as the unanswered handed-out notebook; ``RecordRefusals`` turns the list into
grading notes.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat

from nbgrader.preprocessors import NbGraderPreprocessor

from ..host.limit_settings import SandboxLimits
from .notes import add_note, add_review

REFUSED = ".refused"
LIST = "refused.json"
PLACEHOLDER = "This file replaced a submitted entry that was not a regular file; see refused.json.\n"


def _quarantine(folder: str, assignment: str) -> str:
    return os.path.join(os.path.dirname(folder), REFUSED, assignment)


def _kind(mode: int) -> str | None:
    """Why an entry is refused by its type, or None for a regular file or a folder."""
    if stat.S_ISLNK(mode):
        return "a link"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return None


def configured_limits():
    """The course's limits as nbgrader_config.py sets them (``c.SandboxLimits``): nbgrader calls
    the hook without its configuration, so it is read from the running nbgrader application."""
    from traitlets.config import Application

    config = Application.instance().config if Application.initialized() else None
    return SandboxLimits(config=config).limits() if config is not None else SandboxLimits().limits()


def refusals(folder: str, limit: int | None = None, total: int | None = None) -> list[dict]:
    """Every entry of ``folder`` that may not be copied, with why, without following anything:
    files over ``limit`` bytes, and past ``total`` bytes in all (the configured limits by default)."""
    if limit is None or total is None:
        limits = configured_limits()
        limit = limits.file_size_bytes if limit is None else limit
        total = limits.submission_bytes if total is None else total
    found, used = [], 0
    for top, dirs, files in os.walk(folder, followlinks=False):
        for name in sorted(dirs + files):
            path = os.path.join(top, name)
            info = os.lstat(path)
            why = _kind(info.st_mode)
            if why is None and stat.S_ISREG(info.st_mode):
                if info.st_size > limit:
                    why = f"larger than {limit // 2**20} MiB"
                elif used + info.st_size > total:
                    why = f"past the {total // 2**20} MiB a submission may hold"
                else:
                    used += info.st_size
            if why:
                found.append({"path": os.path.relpath(path, folder), "why": why})
        dirs[:] = [d for d in dirs if _kind(os.lstat(os.path.join(top, d)).st_mode) is None]
    return found


def _free(target: str) -> str:
    """``target``, or, when something was refused there before, a free name beside it that keeps both:
    ``<name>.again-N``, or ``<sha256 of name>.again-N`` when the name is too long to take a suffix
    (a submitted name may be the file system's 255 bytes; refused.json keeps the original path)."""
    folder, name = os.path.split(target)
    stem = name if len(name.encode("utf-8", "surrogateescape")) <= 200 else hashlib.sha256(
        name.encode("utf-8", "surrogateescape")).hexdigest()  # fmt: skip
    n = 0
    while os.path.lexists(target):
        n += 1
        target = os.path.join(folder, f"{stem}.again-{n}")
    return target


def refuse_irregular(assignment=None, student=None, notebooks=(), **_) -> None:
    """nbgrader's pre_convert_hook: move what may not be copied out of the submission folder."""
    if not notebooks:
        return
    folder = os.path.dirname(os.path.abspath(notebooks[0]))
    assignment = os.path.basename(folder)
    found = refusals(folder)
    if not found:
        return
    quarantine = _quarantine(folder, assignment)
    os.makedirs(quarantine, mode=0o700, exist_ok=True)
    for entry in found:
        source = os.path.join(folder, entry["path"])
        target = os.path.join(quarantine, entry["path"])
        os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
        target = _free(target)
        os.rename(source, target)  # the entry itself (a link stays a link), never what it points at
        if entry["path"].endswith(".ipynb"):
            with open(source, "w", encoding="utf-8") as f:  # graded as the unanswered notebook
                f.write(PLACEHOLDER)
    listed = os.path.join(quarantine, LIST)
    earlier = []
    if os.path.isfile(listed):
        with open(listed, encoding="utf-8") as f:
            earlier = json.load(f)
    with open(listed, "w", encoding="utf-8") as f:
        json.dump(earlier + [e for e in found if e not in earlier], f, indent=1)


def _is_placeholder(path: str) -> bool:
    """Whether the file at ``path`` is the note that stands in for a refused notebook."""
    try:  # never through a link, never waiting on a FIFO put there since
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as f:
        return stat.S_ISREG(os.fstat(fd).st_mode) and f.read(len(PLACEHOLDER) + 1) == PLACEHOLDER.encode()


class RecordRefusals(NbGraderPreprocessor):
    """Grading notes for what ``refuse_irregular`` kept out of the submission."""

    def preprocess(self, nb, resources):
        folder = resources.get("metadata", {}).get("path") or ""
        assignment = resources.get("nbgrader", {}).get("assignment") or os.path.basename(folder)
        listed = os.path.join(_quarantine(os.path.abspath(folder), assignment), LIST)
        notebook = os.path.join(folder, f"{resources.get('nbgrader', {}).get('notebook')}.ipynb")
        refused_now = _is_placeholder(notebook)  # refused.json keeps earlier runs' refusals too
        if folder and os.path.isfile(listed):
            with open(listed, encoding="utf-8") as f:
                for entry in json.load(f):
                    add_note(
                        resources,
                        f"'{entry['path']}' was not graded: it was {entry['why']}, and a submission holds only "
                        "regular files (it was moved to the course's .refused folder).",
                    )
                    if refused_now and entry["path"] == os.path.basename(notebook):  # 0 points, unread: look
                        add_review(resources, f"the notebook was not read: it was {entry['why']}")
        return nb, resources
