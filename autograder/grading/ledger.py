"""The grade command's record of each student's last grading (status, reason, time), which the
report reads: ``.autograder/<assignment>.json`` in the course folder.

Several graders may write it at once (two runs, or one run's threads): each write merges under a
file lock and replaces the file atomically, through a temporary file of its own.  ``publish``
keeps its record of what it posted to the LMS the same way (``read_json``/``merge_json``)."""

from __future__ import annotations

import json
import os
import tempfile

from filelock import FileLock

FOLDER = ".autograder"


def ledger_path(course: str, assignment: str) -> str:
    return os.path.join(course, FOLDER, f"{assignment}.json")


def read_ledger(course: str, assignment: str) -> dict:
    return read_json(ledger_path(course, assignment))


def write_ledger(course: str, assignment: str, entries: dict) -> None:
    merge_json(ledger_path(course, assignment), entries)


def read_json(path: str) -> dict:
    """A ledger file's entries; {} when there is none yet (or it cannot be read)."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def merge_json(path: str, entries: dict) -> None:
    """Put ``entries`` into the ledger file at ``path``: merged under a file lock, replaced atomically."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with FileLock(path + ".lock"):
        merged = {**read_json(path), **entries}
        handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".ledger-", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            json.dump(merged, f, indent=1, sort_keys=True)
        os.replace(temporary, path)
