"""A course folder closed to other accounts, whatever umask later writes into it.

Why others may pass through the course root at all: on a hub (hub/install.py) every student's
server reads three things from the course folder, by path: ``hub/etc/`` (its Jupyter settings:
the hub sets ``JUPYTER_CONFIG_PATH`` there), ``autograder/`` and ``gradlessons/`` (the lessons'
checks and widgets, which an editable install imports from there), and the hub's Python
environment when it lives there (``SERVED``).  So the root and ``hub/`` are searchable by others
(``o+x``), never listable, and whatever else sits in them is readable *by name* by every account
as soon as its own mode lets others in: a ``gradebook.db`` that a root shell made under umask 022
was.

What keeps it closed, in layers:

* hub/install.py gives the root to root and leaves the grader account only its working folders
  (submitted/, autograded/, feedback/, ... all closed to others): the grader cannot add an entry
  at the top, and what it writes inside its folders sits behind a folder others cannot search,
  whatever that file's mode.  The root also gets a default ACL whose "other" entry is empty, so
  what root itself makes at the top later (a cron job, a root shell) starts closed under any umask
  (where a folder has a default ACL, the kernel does not apply the umask).
* Grading checks it (``CourseFolder.close``): ``grade`` before it starts, and plain
  ``nbgrader autograde`` after each submission (``nbgrader_config.py``'s ``post_convert_hook``).
  An entry other accounts may use, on a course folder they can reach, is closed (``chmod o-rwx``)
  and said; one this account may not change stops ``grade`` with the command that fixes it.

On a course folder that no other account can reach (a home 0700, pytest's folders) there is
nothing to check.  Links are never followed: a link's own mode means nothing, and its target is
judged where it lives.
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass

# What every account's Jupyter server reads from the course folder, and why: readable by all.
SERVED = {
    "hub/etc": "every server's Jupyter settings: the hub sets JUPYTER_CONFIG_PATH to hub/etc/jupyter "
    "(and hub/etc/student for students)",
    "autograder": "the lessons' checks import it; an environment installed with `pip install -e` imports it from here",
    "gradebox": "the job side of the grader, which autograder imports: imported from here like autograder",
    "gradexercises": "the exercises (their declarations, job sides and judges), which autograder and gradebox import",
    "gradlessons": "the lessons' widgets and plots, imported from here like autograder",
}

_OTHERS = 0o007
_NO_FOLLOW = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY


class CourseFolderOpen(Exception):
    """Part of the course folder is open to every account and this account may not close it."""


@dataclass(frozen=True)
class OpenEntry:
    relative: str  # its path in the course folder
    mode: int  # st_mode: its kind and permissions
    owner: int
    passed_through: bool  # a folder on the way to what servers read: others keep o+x

    @property
    def wanted(self) -> int:
        """Its mode once closed: nothing for others, or only passing through."""
        return self.mode & ~(0o006 if self.passed_through else _OTHERS)

    def describe(self) -> str:
        what = "listable or writable by" if self.passed_through else "open to"
        return f"{self.relative} is {what} every account ({stat.filemode(self.mode)})"


def served_paths(root: str) -> list[str]:
    """``SERVED``, plus the running Python environment when it lives in the course folder (every
    server of a hub runs the hub's environment; grading jobs run the grader's)."""
    found = list(SERVED)
    prefix, real_root = os.path.realpath(sys.prefix), os.path.realpath(root)
    if prefix.startswith(real_root + os.sep):
        found.append(os.path.relpath(prefix, real_root))
    return sorted(found)


def reachable_by_others(path: str) -> bool:
    """Whether any account may search its way down to ``path`` (every folder on the way ``o+x``)."""
    path = os.path.realpath(path)
    while True:
        if not os.stat(path).st_mode & 0o001:
            return False
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent


class CourseFolder:
    """The top of one course folder, as other accounts see it."""

    def __init__(self, root: str, served: list[str] | None = None) -> None:
        self.root = os.path.realpath(root)
        self.served = served_paths(self.root) if served is None else sorted(served)

    def _on_the_way(self, relative: str) -> bool:
        return relative == "." or any(path.startswith(relative + "/") for path in self.served)

    def _is_served(self, relative: str) -> bool:
        return any(relative == path or relative.startswith(path + "/") for path in self.served)

    def open_entries(self) -> list[OpenEntry]:
        """What another account may use: the root and the folders on the way to what servers read
        when they are listable or writable, and every other entry in them with any permission for
        others.  Empty when no other account can reach the root."""
        if not reachable_by_others(self.root):
            return []
        found: list[OpenEntry] = []

        def visit(relative: str) -> None:
            status = os.lstat(os.path.join(self.root, relative))
            if stat.S_ISLNK(status.st_mode) or self._is_served(relative):
                return
            on_the_way = self._on_the_way(relative) and stat.S_ISDIR(status.st_mode)
            if status.st_mode & (0o006 if on_the_way else _OTHERS):
                found.append(OpenEntry(relative, status.st_mode, status.st_uid, on_the_way))
            if on_the_way and status.st_mode & 0o001:
                for name in sorted(os.listdir(os.path.join(self.root, relative))):
                    visit(os.path.normpath(os.path.join(relative, name)))

        visit(".")
        return found

    def close(self) -> list[str]:
        """Close every open entry this account may change; what was closed, in words.  Raises
        ``CourseFolderOpen`` naming the rest (after closing what it could)."""
        closed, stuck, done = [], [], []
        me = os.geteuid()
        for entry in self.open_entries():
            if me not in (0, entry.owner) or not self._chmod(entry):
                stuck.append(entry)
                continue
            done.append(entry)
            closed.append(
                f"closed {entry.relative} in {self.root} to other accounts: it was {stat.filemode(entry.mode)}, "
                f"now {stat.filemode(entry.wanted)}"
            )
        if len(done) > SAID_ONE_BY_ONE:  # a fresh clone's first grading: one line, not one per file
            closed = [
                f"closed {len(done)} entries at the top of {self.root} to other accounts, as a course folder must "
                "be (it holds students' work and the gradebook; docs/instructor.md, A class on one machine): "
                + ", ".join(e.relative for e in done)
            ]
        if stuck:
            paths = " ".join(os.path.join(self.root, e.relative) for e in stuck)
            raise CourseFolderOpen(
                f"the course folder {self.root} is open to every account: "
                + "; ".join(e.describe() for e in stuck)
                + f", and this account may not change it. As its owner or root, run chmod o-rwx {paths} "
                "(chmod o-rw for the course folder itself and hub/, which students' servers pass through), "
                "or run hub/install.py again, then start again."
            )
        return closed

    def _chmod(self, entry: OpenEntry) -> bool:
        """chmod without following a link swapped in since it was looked at (root would otherwise
        change the mode of whatever file the link names); False when it cannot be opened."""
        try:
            fd = os.open(os.path.join(self.root, entry.relative), _NO_FOLLOW)
        except OSError:  # a socket, a file its owner may not read, or gone
            return False
        try:
            status = os.fstat(fd)
            if status.st_uid != entry.owner:
                return False
            os.fchmod(fd, stat.S_IMODE(entry.wanted))
            return True
        finally:
            os.close(fd)


#: At most this many closed entries are said one by one, each with its modes; more make one line.
SAID_ONE_BY_ONE = 5


def say(lines: list[str]) -> None:
    for line in lines:
        print(f"autograder: {line}", file=sys.stderr)


def keep_closed(root: str, **_) -> None:
    """nbgrader's ``Autograde.post_convert_hook`` (bound to the course root in nbgrader_config.py):
    after each graded submission, the top of the course folder is closed again.  nbgrader swallows
    a hook's exceptions, so what cannot be closed is printed as an error instead."""
    try:
        say(CourseFolder(root).close())
    except CourseFolderOpen as error:
        say([f"error: {error}"])
    except OSError as error:  # the hook must not stop grading; the next start checks again
        say([f"error: could not check the course folder {root}: {error}"])
