"""Prepare a machine for the course's hub (as root, once, and again after every update of the course).

    python hub/install.py --course /srv/autograd-course [--course-id autograd-course]
                          [--grader grader-<course id>] [--instructors-group instructors-<course id>]
                          [--roster hub/roster.toml] [--exchange /srv/nbgrader/exchange] [--check]
                          [--python /opt/autograd/bin/python]

It works in the hub's Python environment (the one whose ``jupyterhub`` runs the hub, which every server
runs): the JupyterLab settings go there, and it checks that the grader account cannot change it.  Any
Python may start it: it runs itself again (``os.execv``) with the hub's, which is ``--python`` if given,
else the Python that started it if JupyterHub is installed there, else the course folder's .venv or the
Python beside ``jupyterhub`` on PATH if JupyterHub is installed there; when none is, it stops and says
the command to run.

A hub of several courses (hub/roster.py) runs it once per course, each with its own folder, course
id, grader account and instructors' group.

* the course folder (a clone of this repository) belongs to root and to the instructors' group,
  except the grader account's working folders and files (``GRADER_FOLDERS``, ``GRADER_FILES``): its
  shared server (the hub's service, which TAs use too) releases, collects and grades there, and may
  change nothing else.  What every student's server runs (hub/etc/, autograder/, gradebox/,
  gradexercises/, gradlessons/, the hub's environment) and what root runs (hub/, course.py,
  nbgrader_config.py) is not writable by the grader account or the group: a TA could otherwise run
  code in every student's server, or as root.
  The grader account cannot add an entry at the top of the course folder either, and the top has a
  default ACL closed to others, so a file made there later by root under any umask starts closed
  (autograder/grading/course_folder.py says why the top must stay passable, and how grading checks it);
* it is closed to every other account: the solutions and hidden tests (notebooks/), the
  submissions (submitted/, each with the secret that names its feedback), autograded/, feedback/,
  the gradebook, reports/, .autograder/ (grading records, refused submissions), the git history
  and the hub's own files (its database and cookie secret, if it keeps them in hub/, stay root's
  only).  What students' servers read from it stays readable (``OPEN`` below: hub/etc/,
  autograder/, gradebox/, gradexercises/, gradlessons/, and the hub's Python environment if it lives
  in the course folder);
  the folders on the way to them can be passed through but not listed;
* the instructors' group, ``--instructors-group`` (default ``instructors-<course id>``), is made
  if it is missing, and the grader account and the roster's instructors and TAs who have an account
  on this machine are added to it: they may read the course folder from their own accounts too
  (nobody is removed: take leavers out with ``gpasswd -d``; restart the hub after a change, so the
  grading server has the group).  A roster student in that group stops the install;
* the grader account's home is made private (0700): it is the grading server's HOME (its Jupyter
  runtime files, the terminals' history, whatever an instructor keeps there);
* nbgrader's exchange folder exists, writable by everyone, sticky (each user keeps their own files),
  and the course's folders in it are made now, the grader account's (``EXCHANGE_FOLDERS``);
* the course's JupyterLab settings (no news popup) are installed in the environment the hub runs.

Files made later in the grader's folders are private whatever their mode (the folders are closed);
anything else that adds files to the course folder (``git pull`` as root) should be followed by this
script again.  It checks before it changes anything, and says what is missing.  ``--check`` changes
nothing: it says whether the course folder is closed and whether the grader account could write
anything that students' servers or root run (exit status 2 if so).
The accounts themselves (the grader account, instructors, TAs, students) come from your machine
or your directory service.
"""

from __future__ import annotations

import argparse
import errno
import fnmatch
import grp
import os
import pwd
import shlex
import shutil
import stat
import struct
import subprocess
import sys
from typing import NamedTuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)  # the course folder's own autograder: this may run on the system's python3
from autograder.grading.course_folder import SERVED, CourseFolder  # noqa: E402
from autograder.settings import SETTINGS  # noqa: E402

DEFAULT_COURSE_ID = SETTINGS.value("course_id") or SETTINGS.default("course_id")  # the hub's, if set

# What every account's Jupyter server reads from the course folder: readable by all, root's;
# everything else is closed to other accounts.
OPEN = SERVED

# The grader account's: the only places in the course folder it may write.  Made if missing, closed
# like the rest, so what graders write there later sits behind a folder others cannot search, even
# when it is written with a looser umask than collect's and grade's.  notebooks/ is the source
# folder instructors edit in the formgrader; downloaded/ is zip_collect's.
GRADER_FOLDERS = ("notebooks", "release", "submitted", "autograded", "feedback", "reports", ".autograder",
                  "downloaded")  # fmt: skip
# Files at the top the grader account keeps rewriting (nbgrader export's grades.csv, publish's LMS
# settings, an old SQLite gradebook): its own, closed.  It cannot make new ones there.
GRADER_FILES = ("gradebook.db*", "grades.csv", "lti.toml", "lti_private_key.pem", "lms_users.csv")
# The grader account's alone, 0600, not even the instructors' group's: the course secret the hidden
# checks' seeds come from (autograder/grading/secret.py), which grading refuses to use once others
# can read it.
GRADER_SECRETS = (".autograder/course-secret",)

# A POSIX default ACL (the kernel's xattr format: version 2, then tag, permissions, id per entry)
# giving what is made in a folder later no permission for others, whatever the umask: owner rwx,
# group r-x, others none (a new file's mode is its creator's mode masked by these).
DEFAULT_ACL = "system.posix_acl_default"
CLOSED_DEFAULT_ACL = struct.pack("<I", 2) + b"".join(
    struct.pack("<HHI", tag, perms, 0xFFFFFFFF) for tag, perms in ((0x01, 0o7), (0x04, 0o5), (0x20, 0o0))
)

# The hub's own files, when its state is kept in the course folder (AUTOGRADER_HUB_STATE unset, the
# hub started from there): left to root, 0600.  The cookie secret signs every login, and the hub's
# database keeps the services' environment, the gradebook's address and password with it: the
# grader account (whose server TAs use too) may not read them either.  With
# AUTOGRADER_EXCHANGE_KIND=ngshare, ngshare's database and files (every submission) are kept there too.
HUB_STATE = ("hub/jupyterhub.sqlite*", "hub/jupyterhub_cookie_secret", "hub/ngshare.sqlite*", "hub/ngshare-files")
# The LMS records (hub/lti.py, AUTOGRADER_LMS_RECORDS unset), when kept there too: each course's folder
# belongs to root and that course's grader group, as the hub set them at its start; giving them this
# course's instructors' group would let them read another course's people and tool key.
HUB_KEEPS = ("hub/lms",)

# The course's folders in the exchange, with the modes nbgrader's first release would give them,
# made now and owned by the grader account: the exchange's root is writable by everyone, so a
# student who made them first would own everyone's submissions.  inbound is also sticky (nbgrader
# makes it 0733): a student who learns another's submission's name still cannot move or delete it.
EXCHANGE_FOLDERS = {".": 0o755, "inbound": 0o1733, "outbound": 0o755, "feedback": 0o711}


# Set in the environment of the run that ``os.execv`` starts, to the Python it was started with: a second
# run that still finds itself in another environment stops rather than starting itself again.
REEXEC = "AUTOGRADER_INSTALL_REEXEC"
# The hub environment's place in docs/instructor.md, to name in the command a refusal gives.
DOCUMENTED_PYTHON = "/opt/autograd/bin/python"


class Environment(NamedTuple):
    """A Python and what the install needs to know of it: its environment (``sys.prefix``), and
    whether JupyterHub is installed there (whether it can be the hub's)."""

    python: str
    prefix: str
    has_hub: bool

    @classmethod
    def running(cls) -> Environment:
        import importlib.util

        return cls(sys.executable, os.path.realpath(sys.prefix), importlib.util.find_spec("jupyterhub") is not None)

    @classmethod
    def of(cls, python: str) -> Environment | None:
        """What ``python`` says of itself (isolated: neither the folder nor PYTHONPATH it is started
        from changes the answer); None if it does not run."""
        code = "import importlib.util as u, sys; print(sys.prefix); print(u.find_spec('jupyterhub') is not None)"
        try:
            done = subprocess.run([python, "-I", "-c", code], cwd="/", capture_output=True, text=True, timeout=60)
        except OSError:
            return None
        lines = done.stdout.splitlines()
        if done.returncode != 0 or len(lines) != 2:
            return None
        return cls(python, os.path.realpath(lines[0]), lines[1] == "True")


class WrongPython(Exception):
    """The hub's Python cannot be found or used; the message says what to run instead."""


def hub_python(course: str, named: str | None, running: Environment, argv: list[str]) -> str | None:
    """The Python to run this script again with, or None when the running one is the hub's (see the
    module's docstring for the order)."""
    if named:
        wanted = Environment.of(named)
        if wanted is None:
            raise WrongPython(f"--python {named}: this does not run as a Python")
        if not wanted.has_hub:
            raise WrongPython(f"--python {named}: JupyterHub is not installed in its environment "
                              f"({wanted.prefix}), so it is not the hub's; give the Python of the environment "
                              "that runs jupyterhub")  # fmt: skip
        return None if wanted.prefix == running.prefix else named
    if running.has_hub:
        return None
    beside_hub = shutil.which("jupyterhub")
    candidates = [os.path.join(course, ".venv", "bin", "python")]
    candidates += [os.path.join(os.path.dirname(beside_hub), "python")] if beside_hub else []
    looked = []
    for python in candidates:
        found = Environment.of(python) if os.path.isfile(python) else None
        if found is not None and found.has_hub:
            return python
        looked.append(python if found is None else f"{python} (no JupyterHub there)")
    command = shlex.join([DOCUMENTED_PYTHON, os.path.abspath(__file__), *argv])
    raise WrongPython(f"{running.python} has no JupyterHub, so it is not the hub's Python, and none was found "
                      f"(looked at {', '.join(looked)}): run this script with the hub's, e.g. {command} "
                      "(the Python beside the jupyterhub that runs your hub), or add --python <it>")  # fmt: skip


def run_with(python: str, argv: list[str]) -> None:
    """Start this script again with ``python`` (this process becomes it), with the same arguments."""
    if os.environ.get(REEXEC):
        command = shlex.join([python, os.path.abspath(__file__), *argv])
        raise WrongPython(f"started again with {os.environ[REEXEC]}, it still runs in {sys.prefix}, not in that "
                          f"Python's environment: run {command}")  # fmt: skip
    print(f"hub/install.py: running again with the hub's Python, {python} (started by {sys.executable})",
          file=sys.stderr)  # fmt: skip
    sys.stderr.flush()
    os.environ[REEXEC] = python
    os.execv(python, [python, os.path.abspath(__file__), *argv])


def fail(problems: list[str]) -> int:
    for problem in problems:
        print(f"hub/install.py: {problem}", file=sys.stderr)
    return 2


def read_roster(path: str, course_id: str) -> dict[str, list[str]]:
    """The people of one course of the roster (hub/roster.py reads and checks it)."""
    if HERE not in sys.path:  # the hub's folder is no package: its files import each other from beside them
        sys.path.insert(0, HERE)
    import roster

    # Under LTI logins (the hub's AUTOGRADER_AUTH=lti13) a course with an lti_context may name no instructor.
    courses = {course.id: course for course in roster.load(path, lms=SETTINGS.value("auth") == "lti13")}
    if course_id not in courses:
        raise ValueError(f"it has no course {course_id!r} (it has {', '.join(sorted(courses))})")
    return {role: list(getattr(courses[course_id], role)) for role in roster.ROLES}


def account(name: str) -> pwd.struct_passwd | None:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


def group_members(name: str) -> set[str] | None:
    """The accounts in a group (listed in it, or with it as their own group); None if there is none."""
    try:
        group = grp.getgrnam(name)
    except KeyError:
        return None
    return set(group.gr_mem) | {user.pw_name for user in pwd.getpwall() if user.pw_gid == group.gr_gid}


def open_paths(course: str) -> dict[str, str]:
    """``OPEN``, plus the Python environment running this script when it lives in the course folder
    (every user's server runs the hub's environment)."""
    found = dict(OPEN)
    prefix = os.path.realpath(sys.prefix)
    if prefix.startswith(os.path.realpath(course) + os.sep):
        found[os.path.relpath(prefix, os.path.realpath(course))] = (
            "the hub's Python environment, which every server runs"
        )
    return found


def mode_for(relative: str, status: os.stat_result, readable: list[str]) -> int:
    """The mode of one entry of the course folder.  Folders are set-group-id, so what is made in
    them later keeps the instructors' group."""
    folder, executable = stat.S_ISDIR(status.st_mode), bool(status.st_mode & 0o111)
    if relative in GRADER_SECRETS and stat.S_ISREG(status.st_mode):
        return 0o600
    if any(relative == path or relative.startswith(path + "/") for path in readable):
        return 0o755 if folder or executable else 0o644
    if folder and any(relative == "." or path.startswith(relative + "/") for path in readable):
        return 0o2751  # on the way to an open path: others pass through, never list
    if folder:
        return 0o2750
    return 0o750 if executable else 0o640  # no set-user-id file survives either


def is_graders(relative: str) -> bool:
    """Whether an entry of the course folder is the grader account's (``GRADER_FOLDERS`` and what
    they hold, ``GRADER_FILES``) rather than root's."""
    top = relative.split("/", 1)[0]
    return top in GRADER_FOLDERS or (
        "/" not in relative and any(fnmatch.fnmatch(relative, pattern) for pattern in GRADER_FILES)
    )


def passed_through(readable: list[str]) -> list[str]:
    """The folders of the course on the way to what servers read: the top, hub/."""
    found = {"."}
    for path in readable:
        while "/" in path:
            path = path.rsplit("/", 1)[0]
            found.add(path)
    return sorted(found)


def close_course(course: str, uid: int, gid: int, readable: list[str]) -> None:
    """Owner, group and mode of everything in the course folder, walked through open folders and
    never through a link: the grader account (whose terminal TAs use) may change its folders while
    root walks them, and a link swapped in must not turn root's chmod onto a file elsewhere."""

    def visit(fd: int, relative: str) -> None:
        status = os.fstat(fd)
        if relative in HUB_KEEPS:
            return
        if any(fnmatch.fnmatch(relative, pattern) for pattern in HUB_STATE):
            os.fchown(fd, 0, 0)
            os.fchmod(fd, 0o600)
            return
        os.fchown(fd, uid if is_graders(relative) else 0, gid)
        os.fchmod(fd, mode_for(relative, status, readable))
        if not stat.S_ISDIR(status.st_mode):
            return
        for name in sorted(os.listdir(fd)):
            try:
                child = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY, dir_fd=fd)
            except OSError:  # a link (its target is judged where it lives) or a socket: owner only
                owner = uid if is_graders(os.path.normpath(os.path.join(relative, name))) else 0
                os.chown(name, owner, gid, dir_fd=fd, follow_symlinks=False)
                continue
            try:
                visit(child, os.path.normpath(os.path.join(relative, name)))
            finally:
                os.close(child)

    top = os.open(course, os.O_RDONLY | os.O_DIRECTORY)
    try:
        visit(top, ".")
    finally:
        os.close(top)


def close_by_default(course: str, folders: list[str]) -> list[str]:
    """``CLOSED_DEFAULT_ACL`` on each folder (root's, so nobody swaps them meanwhile); the folders
    whose file system keeps no ACLs.  What root makes there later (a cron job, a root shell under
    umask 022) is then closed to others from the start: the kernel ignores the umask where a
    default ACL is."""
    refused = []
    for relative in folders:
        try:
            os.setxattr(os.path.join(course, relative), DEFAULT_ACL, CLOSED_DEFAULT_ACL, follow_symlinks=False)
        except OSError as error:
            if error.errno not in (errno.ENOTSUP, errno.EOPNOTSUPP):
                raise
            refused.append(relative)
    return refused


def default_acl_closed(path: str) -> bool | None:
    """Whether the folder's default ACL leaves others nothing; None where the file system keeps no ACLs."""
    try:
        value = os.getxattr(path, DEFAULT_ACL, follow_symlinks=False)
    except OSError as error:
        if error.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            return None
        return False  # none set (ENODATA)
    entries = [struct.unpack_from("<HHI", value, offset) for offset in range(4, len(value), 8)]
    return any(tag == 0x20 and perms == 0 for tag, perms, _ in entries)


def named_acl(path: str) -> bool:
    """Whether an access ACL names a user or a group: a grant the mode bits do not show."""
    try:
        value = os.getxattr(path, "system.posix_acl_access", follow_symlinks=False)
    except OSError:
        return False
    return any(struct.unpack_from("<H", value, offset)[0] in (0x02, 0x08) for offset in range(4, len(value), 8))


class Writers:
    """Who the grader account is, to the file system: its uid and every group it is (or is about to
    be) in.  TAs use its server, and the instructors' group is theirs too."""

    def __init__(self, grader: pwd.struct_passwd, groups: list[int]) -> None:
        self.uid = grader.pw_uid
        self.gids = {grader.pw_gid, *groups}
        self.gids |= {group.gr_gid for group in grp.getgrall() if grader.pw_name in group.gr_mem}

    def may_write(self, status: os.stat_result) -> bool:
        """Whether it may change this entry (its owner may chmod it) or, for a folder, its entries."""
        if status.st_uid == self.uid:
            return True
        return bool(status.st_mode & 0o002 or (status.st_gid in self.gids and status.st_mode & 0o020))

    def tree(self, top: str, skip=lambda relative: False) -> list[str]:
        """Every entry under ``top`` it could change (links are skipped: nobody changes a link but by
        replacing it, which its folder decides)."""
        found = []
        for folder, folders, files in os.walk(top):
            relative = os.path.relpath(folder, top)
            folders[:] = [name for name in folders if not skip(os.path.normpath(os.path.join(relative, name)))]
            for name in [".", *folders, *files]:
                if name != "." and skip(os.path.normpath(os.path.join(relative, name))):
                    continue
                path = os.path.normpath(os.path.join(folder, name))
                status = os.lstat(path)
                if not stat.S_ISLNK(status.st_mode) and (self.may_write(status) or named_acl(path)):
                    found.append(path)
        return found

    def ancestors(self, path: str) -> list[str]:
        """The folders above ``path`` in which it could rename or replace the next one down (a
        sticky folder lets it do so only with what it owns)."""
        found, path = [], os.path.realpath(path)
        while os.path.dirname(path) != path:
            parent = os.path.dirname(path)
            status, child = os.stat(parent), os.lstat(path)
            sticky_guard = status.st_mode & stat.S_ISVTX and child.st_uid != self.uid
            if (self.may_write(status) or named_acl(parent)) and not sticky_guard:
                found.append(parent)
            path = parent
        return found


def imported_from(names: tuple[str, ...] = ("autograder", "gradebox", "gradexercises", "gradlessons")) -> list[str]:
    """The folders the hub's environment imports the course's packages from, as any server would
    (an isolated interpreter, started outside the course folder)."""
    code = "import importlib.util, os, sys\n" + "".join(
        f"spec = importlib.util.find_spec({name!r})\nspec and print(os.path.dirname(spec.origin))\n" for name in names
    )
    done = subprocess.run([sys.executable, "-I", "-c", code], cwd="/", capture_output=True, text=True, check=True)
    return [line for line in done.stdout.splitlines() if line]


def code_writable(course: str, writers: Writers, inside: bool = True, outside: bool = True) -> list[str]:
    """What the grader account could change among what students' servers or root run: everything
    in the course folder but the grader's own entries (``inside``), the hub's environment and the
    course's packages wherever it imports them from (``outside``), and the folders above them."""
    course = os.path.realpath(course)
    found = writers.tree(course, skip=is_graders) if inside else []
    places = [os.path.realpath(sys.prefix), *(os.path.realpath(p) for p in imported_from())] if outside else []
    for place in dict.fromkeys(places):
        if place != course and not place.startswith(course + os.sep):
            found += writers.tree(place)
    for place in dict.fromkeys([course, *places]):
        found += writers.ancestors(place)
    return sorted(dict.fromkeys(found))


def check(course: str, writers: Writers, readable: list[str], outside: bool = True) -> list[str]:
    """What is not as the install leaves it: the course folder open to others, or code that the
    grader account could change (in the course folder, and ``outside`` it: the environment)."""
    problems = [f"{course}: {entry.describe()}; run this script again"
                for entry in CourseFolder(course, served=readable).open_entries()]  # fmt: skip
    for path in code_writable(course, writers, outside=outside):
        problems.append(f"{path} could be changed by the grader account (owner, group or others may write, or an "
                        "ACL names someone): students' servers or root run it. Make it root's and not writable "
                        "by the group (chown root and chmod go-w), or run this script again")  # fmt: skip
    for relative in passed_through(readable):
        if default_acl_closed(os.path.join(course, relative)) is False:
            problems.append(f"{os.path.join(course, relative)} has no default ACL closed to others: what root makes "
                            "there later keeps root's umask; run this script again")  # fmt: skip
    return problems


def make_exchange_folders(exchange: str, course_id: str, uid: int, gid: int) -> None:
    """``EXCHANGE_FOLDERS``, each made or opened without following a link (students may write into
    the exchange's root while this runs) and refused if someone else made it meanwhile."""
    parent = os.open(os.path.realpath(exchange), os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    opened = []
    try:
        for name, mode in EXCHANGE_FOLDERS.items():
            base, leaf = (parent, course_id) if name == "." else (opened[0], name)
            try:
                os.mkdir(leaf, 0o700, dir_fd=base)
            except FileExistsError:
                pass
            fd = os.open(leaf, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=base)
            opened.append(fd)
            if os.fstat(fd).st_uid not in (0, uid):
                raise SystemExit(f"hub/install.py: {exchange}/{course_id}/{name} was made by someone else just now")
            os.fchown(fd, uid, gid)
            os.fchmod(fd, mode)
    finally:
        for fd in [parent, *opened]:
            os.close(fd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--course", required=True, help="the course folder (a clone of this repository)")
    parser.add_argument(
        "--course-id",
        default=DEFAULT_COURSE_ID,
        help="nbgrader's course id: the roster's course, the exchange's folder (default %(default)s)",
    )
    parser.add_argument("--grader", help="the account that runs the grading server (default grader-<course id>)")
    parser.add_argument("--instructors-group",
                        help="the group that may read the course folder besides the grader account "
                        "(default instructors-<course id>; made if missing; the course's instructors and TAs "
                        "in the roster are added)")  # fmt: skip
    parser.add_argument("--roster", default=SETTINGS.value("roster") or os.path.join(HERE, "roster.toml"),
                        help="the hub's roster (default: $AUTOGRADER_ROSTER or hub/roster.toml)")  # fmt: skip
    parser.add_argument("--exchange", default=SETTINGS.value("exchange") or SETTINGS.default("exchange"),
                        help="nbgrader's exchange folder (default: $AUTOGRADER_EXCHANGE, as the hub's, or "
                        "%(default)s)")  # fmt: skip
    parser.add_argument("--python",
                        help="the hub's Python (of the environment whose jupyterhub runs the hub, e.g. "
                        f"{DOCUMENTED_PYTHON}); when another Python started this script, it runs itself again with "
                        "this one (os.execv).  Default: the Python that started it if JupyterHub is installed there, "
                        "else the course folder's .venv/bin/python or the Python beside jupyterhub on PATH if "
                        "JupyterHub is installed there; else it stops and says the command to run")  # fmt: skip
    parser.add_argument("--check", action="store_true",
                        help="change nothing: say whether the course folder is closed to other accounts and "
                        "whether the grader account could change what students' servers or root run "
                        "(exit status 2 if so)")  # fmt: skip
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    course = os.path.abspath(args.course)
    # The hub's environment first: the lab settings go into it, and the checks look at it.
    try:
        python = hub_python(course, args.python, Environment.running(), argv)
        if python:
            run_with(python, argv)  # returns only in a test's patched os.execv
            return 0
    except WrongPython as error:
        return fail([str(error)])
    args.grader = args.grader or f"grader-{args.course_id}"
    args.instructors_group = args.instructors_group or f"instructors-{args.course_id}"

    # Everything is checked first; nothing has changed when a problem is reported.
    problems = []
    if os.geteuid() != 0:
        problems.append("run it as root: it gives the course folder to the grader account and makes the exchange.")
    grader = account(args.grader)
    if grader is None:
        problems.append(f"there is no account {args.grader!r}; make it first (useradd --create-home {args.grader}).")
    elif grader.pw_uid == 0:
        problems.append(f"the grader account {args.grader!r} is root: make an account of its own for it.")
    if not os.path.isfile(os.path.join(course, "nbgrader_config.py")):
        problems.append(f"{course} is not a course folder (no nbgrader_config.py): clone the course there first.")
    try:
        roster = read_roster(args.roster, args.course_id)
    except (OSError, ValueError) as error:
        problems.append(f"cannot read the roster {args.roster}: {error}")
        roster = {"instructors": [], "tas": [], "students": []}
    members = group_members(args.instructors_group)
    students_in_group = sorted(set(roster["students"]) & (members or set()))
    if students_in_group:
        problems.append(f"the instructors' group {args.instructors_group!r} holds students of the roster "
                        f"({', '.join(students_in_group)}): it would open the course folder to them.")  # fmt: skip
    exchange_course = os.path.join(os.path.abspath(args.exchange), args.course_id)
    for name in EXCHANGE_FOLDERS:
        path = os.path.normpath(os.path.join(exchange_course, name))
        if os.path.lexists(path) and grader is not None:
            status = os.lstat(path)
            if not stat.S_ISDIR(status.st_mode) or status.st_uid != grader.pw_uid:
                problems.append(f"{path} exists and is not a folder of {args.grader!r}: someone else made it "
                                "(look inside, then move it away).")  # fmt: skip
    readable = open_paths(course)
    if not problems and args.check:
        writers = Writers(grader, [] if members is None else [grp.getgrnam(args.instructors_group).gr_gid])
        problems = check(course, writers, sorted(readable))
        if problems:
            return fail(problems)
        print(f"course folder {course}: closed to other accounts but for what their servers read; nothing that "
              f"students' servers or root run can be changed by {args.grader}")  # fmt: skip
        return 0
    if not problems:  # what install does not own: the hub's environment, where it lives outside the course
        writers = Writers(grader, [] if members is None else [grp.getgrnam(args.instructors_group).gr_gid])
        course_real = os.path.realpath(course)
        problems += [f"{path} could be changed by the grader account {args.grader!r}, and every student's server "
                     "(or root) runs it: make it root's, not writable by group or others (chown -R root and "
                     "chmod -R go-w), then run this script again"
                     for path in code_writable(course, writers, inside=False)
                     if path != course_real and not path.startswith(course_real + os.sep)]  # fmt: skip
    if problems:
        return fail(problems)

    made = members is None
    if made:
        subprocess.run(["groupadd", args.instructors_group], check=True, capture_output=True)
    added = []
    # The grader account reads root's files of the course (nbgrader_config.py) through the group.
    if args.grader not in (group_members(args.instructors_group) or set()):
        subprocess.run(["gpasswd", "-a", args.grader, args.instructors_group], check=True, capture_output=True)
    for name in roster["instructors"] + roster["tas"]:
        if account(name) is not None and name not in (group_members(args.instructors_group) or set()):
            subprocess.run(["gpasswd", "-a", name, args.instructors_group], check=True, capture_output=True)
            added.append(name)
    gid = grp.getgrnam(args.instructors_group).gr_gid

    sys.path.insert(0, ROOT)
    import course as course_script  # the repository's course.py: one place for the lab settings

    settings = course_script.install_lab_settings(sys.prefix)
    for name in GRADER_FOLDERS:
        os.makedirs(os.path.join(course, name), exist_ok=True)
    close_course(course, grader.pw_uid, gid, sorted(readable))
    no_acl = close_by_default(course, passed_through(sorted(readable)))
    left = check(course, Writers(grader, [gid]), sorted(readable), outside=False)  # outside: checked above
    if left:  # changed while this ran (the grader account's server is running): nothing is left half-said
        return fail(["the course folder is not as it should be after the install:", *left])
    if os.path.isdir(grader.pw_dir) and os.stat(grader.pw_dir).st_uid == grader.pw_uid:
        os.chmod(grader.pw_dir, 0o700)
    os.makedirs(args.exchange, exist_ok=True)
    os.chmod(args.exchange, 0o777 | stat.S_ISVTX)
    make_exchange_folders(args.exchange, args.course_id, grader.pw_uid, grader.pw_gid)
    print(f"instructors' group {args.instructors_group}: {'made' if made else 'already there'}"
          f"{'; added ' + ', '.join(added) if added else ''}")  # fmt: skip
    print(
        f"course folder {course}: root's and the group {args.instructors_group}'s; "
        "closed to every other account except what their servers read:"
    )
    for path, why in sorted(readable.items()):
        print(f"  {path}/  ({why})")
    print(f"  {args.grader} may write only {', '.join(f + '/' for f in GRADER_FOLDERS)} and its files at the top "
          f"({', '.join(GRADER_FILES)}); the rest is root's")  # fmt: skip
    if no_acl:
        print(f"  note: the file system keeps no ACLs ({', '.join(no_acl)}): what root makes at the top later keeps "
              "root's umask; grading closes it when it starts")  # fmt: skip
    else:
        print("  what root makes at the top later is closed to others whatever its umask (a default ACL)")
    if any(os.path.lexists(os.path.join(course, name)) for name in ("gradebook.db", "gradebook.db-journal")):
        print(f"  note: gradebook.db is at the top, where {args.grader} can no longer make SQLite's journal: use "
              f"PostgreSQL (AUTOGRADER_DB_URL), or move it into .autograder/ and set "
              f"AUTOGRADER_DB_URL=sqlite:///{course}/.autograder/gradebook.db")  # fmt: skip
    print(f"grader's home {grader.pw_dir}: private (0700)")
    print(f"exchange {args.exchange}: everyone may write, sticky; {args.course_id}/ in it is {args.grader}'s "
          "(inbound: students may add, not list, move or delete)")  # fmt: skip
    print(f"JupyterLab settings: {settings}")
    print(f"next: AUTOGRADER_COURSE_ROOT={course} AUTOGRADER_DB_URL=postgresql://...")
    print(f"      jupyterhub -f {HERE}/jupyterhub_config.py   (see docs/instructor.md)")
    print("      run this script again after every update of the course folder")
    return 0


if __name__ == "__main__":
    sys.exit(main())
