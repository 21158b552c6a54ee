"""Prepare a machine for the course's hub (as root, once, and again after an update).

    python hub/install.py --course /srv/autograd-course [--grader grader-autograd-course]
                          [--exchange /srv/nbgrader/exchange]

* the course folder (a clone of this repository) belongs to the grader account, whose shared
  server (the hub's service) releases, collects and grades there;
* nbgrader's exchange folder exists, writable by everyone, sticky (each user keeps their own files);
* the course's JupyterLab settings (no news popup) are installed in the environment the hub runs.

It checks before it changes anything, and says what is missing.  The accounts themselves (the
grader account, instructors, TAs, students) come from your machine or your directory service.
"""

from __future__ import annotations

import argparse
import os
import pwd
import stat
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
COURSE_ID = "autograd-course"


def fail(message: str) -> int:
    print(f"hub/install.py: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--course", required=True, help="the course folder (a clone of this repository)")
    parser.add_argument("--grader", default=f"grader-{COURSE_ID}", help="the account that runs the grading server")
    parser.add_argument("--exchange", default="/srv/nbgrader/exchange", help="nbgrader's exchange folder")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        return fail("run it as root: it gives the course folder to the grader account and makes the exchange.")
    try:
        grader = pwd.getpwnam(args.grader)
    except KeyError:
        return fail(f"there is no account {args.grader!r}; make it first (useradd --create-home {args.grader}).")
    course = os.path.abspath(args.course)
    if not os.path.isfile(os.path.join(course, "nbgrader_config.py")):
        return fail(f"{course} is not a course folder (no nbgrader_config.py): clone the course there first.")

    for folder, _, files in os.walk(course):
        for name in [folder, *(os.path.join(folder, f) for f in files)]:
            os.lchown(name, grader.pw_uid, grader.pw_gid)
    os.makedirs(args.exchange, exist_ok=True)
    os.chmod(args.exchange, 0o777 | stat.S_ISVTX)
    sys.path.insert(0, ROOT)
    import course as course_script  # the repository's course.py: one place for the lab settings

    settings = course_script.install_lab_settings(sys.prefix)
    print(f"course folder {course}: owned by {args.grader}")
    print(f"exchange {args.exchange}: everyone may write, sticky")
    print(f"JupyterLab settings: {settings}")
    print(f"next: AUTOGRAD_COURSE_ROOT={course} AUTOGRAD_DB_URL=postgresql://...")
    print(f"      jupyterhub -f {HERE}/jupyterhub_config.py   (see the README's hub section)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
