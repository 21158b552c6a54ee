"""Prepare a machine for the course's hub (as root, once, and again after every update of the course).

    python hub/install.py --course /srv/autograd-course [--course-id autograd-course]
                          [--grader grader-<course id>] [--instructors-group instructors-<course id>]
                          [--roster hub/roster.toml] [--exchange /srv/nbgrader/exchange]

A hub of several courses (hub/roster.py) runs it once per course, each with its own folder, course
id, grader account and instructors' group.

* the course folder (a clone of this repository) belongs to the grader account, whose shared
  server (the hub's service) releases, collects and grades there, and to the instructors' group;
* it is closed to every other account: the solutions and hidden tests (notebooks/), the
  submissions (submitted/, each with the secret that names its feedback), autograded/, feedback/,
  the gradebook, reports/, .autograder/ (grading records, refused submissions), the git history
  and the hub's own files (its database and cookie secret, if it keeps them in hub/, stay root's
  only).  What students' servers read from it stays readable (``OPEN`` below: hub/etc/,
  autograder/, gradlessons/, and the hub's Python environment if it lives in the course folder);
  the folders on the way to them can be passed through but not listed;
* the instructors' group, ``--instructors-group`` (default ``instructors-<course id>``), is made
  if it is missing, and the roster's instructors and TAs who have an account on this machine are
  added to it: they may read the course folder from their own accounts too (nobody is removed:
  take leavers out with ``gpasswd -d``).  A roster student in that group stops the install;
* the grader account's home is made private (0700): it is the grading server's HOME (its Jupyter
  runtime files, the terminals' history, whatever an instructor keeps there);
* nbgrader's exchange folder exists, writable by everyone, sticky (each user keeps their own files),
  and the course's folders in it are made now, the grader account's (``EXCHANGE_FOLDERS``);
* the course's JupyterLab settings (no news popup) are installed in the environment the hub runs.

Files made later in the course folder by the grading server, collect and grade are private (they
run under umask 077); anything else that adds files there (``git pull`` as root) should be
followed by this script again.  It checks before it changes anything, and says what is missing.
The accounts themselves (the grader account, instructors, TAs, students) come from your machine
or your directory service.
"""

from __future__ import annotations

import argparse
import fnmatch
import grp
import os
import pwd
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)  # the course folder's own autograder: this may run on the system's python3
from autograder.settings import setting  # noqa: E402

DEFAULT_COURSE_ID = "autograd-course"

# What every account's Jupyter server reads from the course folder: readable by all; everything
# else is the grader account's and the instructors' group's only.
OPEN = {
    "hub/etc": "every server's Jupyter settings: the hub sets JUPYTER_CONFIG_PATH to hub/etc/jupyter "
    "(and hub/etc/student for students)",
    "autograder": "the lessons' checks import it; an environment installed with `pip install -e` imports it from here",
    "gradlessons": "the lessons' widgets and plots, imported from here like autograder",
}

# Made if missing (closed like the rest), so that what graders write there later sits behind a
# closed folder even when it is written with a looser umask than collect's and grade's.
CLOSED_FOLDERS = ("submitted", "autograded", "feedback", "reports", ".autograder")

# The hub's own files, when its state is kept in the course folder (AUTOGRADER_HUB_STATE unset, the
# hub started from there): left to root, 0600.  The cookie secret signs every login, and the hub's
# database keeps the services' environment, the gradebook's address and password with it: the
# grader account (whose server TAs use too) may not read them either.  With
# AUTOGRADER_EXCHANGE_KIND=ngshare, ngshare's database and files (every submission) are kept there too.
HUB_STATE = ("hub/jupyterhub.sqlite*", "hub/jupyterhub_cookie_secret", "hub/ngshare.sqlite*", "hub/ngshare-files")

# The course's folders in the exchange, with the modes nbgrader's first release would give them,
# made now and owned by the grader account: the exchange's root is writable by everyone, so a
# student who made them first would own everyone's submissions.  inbound is also sticky (nbgrader
# makes it 0733): a student who learns another's submission's name still cannot move or delete it.
EXCHANGE_FOLDERS = {".": 0o755, "inbound": 0o1733, "outbound": 0o755, "feedback": 0o711}


def fail(problems: list[str]) -> int:
    for problem in problems:
        print(f"hub/install.py: {problem}", file=sys.stderr)
    return 2


def read_roster(path: str, course_id: str) -> dict[str, list[str]]:
    """The people of one course of the roster (hub/roster.py reads and checks it)."""
    if HERE not in sys.path:  # the hub's folder is no package: its files import each other from beside them
        sys.path.insert(0, HERE)
    import roster

    courses = {course.id: course for course in roster.load(path)}
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
    if any(relative == path or relative.startswith(path + "/") for path in readable):
        return 0o755 if folder or executable else 0o644
    if folder and any(relative == "." or path.startswith(relative + "/") for path in readable):
        return 0o2751  # on the way to an open path: others pass through, never list
    if folder:
        return 0o2750
    return 0o750 if executable else 0o640  # no set-user-id file survives either


def close_course(course: str, uid: int, gid: int, readable: list[str]) -> None:
    """Owner, group and mode of everything in the course folder, walked through open folders and
    never through a link: the grader account (whose terminal TAs use) may change the folder while
    root walks it, and a link swapped in must not turn root's chmod onto a file elsewhere."""

    def visit(fd: int, relative: str) -> None:
        status = os.fstat(fd)
        if any(fnmatch.fnmatch(relative, pattern) for pattern in HUB_STATE):
            os.fchown(fd, 0, 0)
            os.fchmod(fd, 0o600)
            return
        os.fchown(fd, uid, gid)
        os.fchmod(fd, mode_for(relative, status, readable))
        if not stat.S_ISDIR(status.st_mode):
            return
        for name in sorted(os.listdir(fd)):
            try:
                child = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY, dir_fd=fd)
            except OSError:  # a link (its target is judged where it lives) or a socket: owner only
                os.chown(name, uid, gid, dir_fd=fd, follow_symlinks=False)
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
    parser.add_argument("--roster", default=setting("ROSTER", os.path.join(HERE, "roster.toml")),
                        help="the hub's roster (default: $AUTOGRADER_ROSTER or hub/roster.toml)")  # fmt: skip
    parser.add_argument("--exchange", default="/srv/nbgrader/exchange", help="nbgrader's exchange folder")
    args = parser.parse_args(argv)
    course = os.path.abspath(args.course)
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
    if problems:
        return fail(problems)

    made = members is None
    if made:
        subprocess.run(["groupadd", args.instructors_group], check=True, capture_output=True)
    added = []
    for name in roster["instructors"] + roster["tas"]:
        if account(name) is not None and name not in (group_members(args.instructors_group) or set()):
            subprocess.run(["gpasswd", "-a", name, args.instructors_group], check=True, capture_output=True)
            added.append(name)
    gid = grp.getgrnam(args.instructors_group).gr_gid

    sys.path.insert(0, ROOT)
    import course as course_script  # the repository's course.py: one place for the lab settings

    settings = course_script.install_lab_settings(sys.prefix)
    for name in CLOSED_FOLDERS:
        os.makedirs(os.path.join(course, name), exist_ok=True)
    readable = open_paths(course)
    close_course(course, grader.pw_uid, gid, sorted(readable))
    if os.path.isdir(grader.pw_dir) and os.stat(grader.pw_dir).st_uid == grader.pw_uid:
        os.chmod(grader.pw_dir, 0o700)
    os.makedirs(args.exchange, exist_ok=True)
    os.chmod(args.exchange, 0o777 | stat.S_ISVTX)
    make_exchange_folders(args.exchange, args.course_id, grader.pw_uid, grader.pw_gid)
    print(f"instructors' group {args.instructors_group}: {'made' if made else 'already there'}"
          f"{'; added ' + ', '.join(added) if added else ''}")  # fmt: skip
    print(
        f"course folder {course}: owned by {args.grader} and the group {args.instructors_group}; "
        "closed to every other account except what their servers read:"
    )
    for path, why in sorted(readable.items()):
        print(f"  {path}/  ({why})")
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
