"""ngshare, the nbgrader exchange that knows who submitted, as the hub's service for its courses.

The hub starts this (``AUTOGRADER_EXCHANGE_KIND=ngshare`` in hub/jupyterhub_config.py) as its managed
service ``ngshare``:

    python hub/ngshare_service.py --course autograd-course [--course autograd-spring ...] \
        --roster roster.toml --database sqlite:///STATE/ngshare.sqlite --storage STATE/ngshare-files

It runs ngshare 0.6.0 (https://github.com/LibreTexts/ngshare, pinned in hub/requirements.txt) as it
is, with two additions, both here and nowhere in ngshare's code:

* ``restore_backref_cascade``: ngshare was written for SQLAlchemy 1.x, where an object assigned to
  a relationship of an object already in the session joined that session ("cascade_backrefs").
  SQLAlchemy 2 removed that, and ngshare's release (``Assignment(name, course)``) and submit
  (``Submission(user, assignment)``) then answer "success" and store nothing.  The shim puts back
  exactly that behaviour for those three relationships (an attribute event adds the new object to
  its parent's session); tests/hub/test_ngshare_exchange.py runs release, submit, collect and
  feedback through it for real.
* ``sync_course``: each course in ngshare, from the roster, through ngshare's own REST API: made if
  missing, with its grading service (the hub service named after the course, and anyone named by
  ``--instructor``), the roster's instructors and TAs as its instructors and its students as
  students.  A course is ngshare's unit: what one course's people release, submit and collect is
  not in another's.  Run at every start; nobody is removed (a leaver keeps
  their submissions; remove them with ngshare's API or ``ngshare-course-management``).  It acts
  with this service's own hub token: ngshare's only admin is this service itself (``--admins`` is
  the service's name), so no person's token can make or delete courses.

Who is who: ngshare asks the hub whose token each request carries (``/hub/api/user``), so a
student's identity is their hub login, whatever user id, file owner or environment they claim.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request


def restore_backref_cascade() -> None:
    """SQLAlchemy 1.x's cascade along backrefs, for the relationships ngshare relies on it for."""
    from ngshare.database.database import Assignment, Submission
    from sqlalchemy import event
    from sqlalchemy.orm import configure_mappers, object_session

    def join_parents_session(target, value, oldvalue, initiator):
        session = object_session(value) if value is not None else None
        if session is not None and object_session(target) is None:
            session.add(target)

    configure_mappers()  # the backref attributes (Assignment.course, Submission.assignment) exist from here
    for attribute in (Assignment.course, Submission.assignment, Submission.student):
        if not event.contains(attribute, "set", join_parents_session):
            event.listen(attribute, "set", join_parents_session)


def api(base: str, token: str, method: str, path: str, fields: dict | None = None) -> dict:
    """One ngshare API call with a hub token; its JSON answer (failures included: they say why)."""
    data = urllib.parse.urlencode(fields).encode() if fields is not None else None
    request = urllib.request.Request(base.rstrip("/") + "/" + path, data=data, method=method)
    request.add_header("Authorization", f"token {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as error:
        try:
            return json.load(error)
        except ValueError:  # not ngshare's answer: the hub that checks tokens is not up yet, say
            return {"success": False, "message": f"HTTP {error.code} from {path}", "again": True}
    except (OSError, ValueError) as error:
        return {"success": False, "message": f"{path}: {error}", "again": True}


RETRY = "ngshare could not check this service's token with the hub yet"


def sync_course(base: str, token: str, course: str, instructors: list[str], students: list[str]) -> list[str]:
    """Make ``course`` in ngshare if missing and enrol everyone; returns what it could not do."""
    problems = []
    quoted = urllib.parse.quote(course, safe="")
    listed = api(base, token, "GET", "courses")
    if listed.get("again"):  # nothing done yet: the caller tries again
        return [RETRY]
    if course not in listed.get("courses", []):
        answer = api(base, token, "POST", f"course/{quoted}", {"instructors": json.dumps(instructors)})
        if not answer.get("success"):
            problems.append(f"course {course}: {answer.get('message')}")
    for name in instructors:
        fields = {"first_name": "", "last_name": "", "email": ""}
        answer = api(base, token, "POST", f"instructor/{quoted}/{urllib.parse.quote(name, safe='')}", fields)
        if not answer.get("success"):
            problems.append(f"instructor {name}: {answer.get('message')}")
    if students:
        rows = [{"username": name, "first_name": "", "last_name": "", "email": ""} for name in students]
        answer = api(base, token, "POST", f"students/{quoted}", {"students": json.dumps(rows)})
        for row in answer.get("status", []) if answer.get("success") else [{"message": answer.get("message")}]:
            if not row.get("success"):
                problems.append(f"student {row.get('username', '')}: {row.get('message')}")
    return problems


def sync_when_up(base: str, token: str, courses: dict[str, tuple[list[str], list[str]]]) -> None:
    """Each course of ``courses`` (id: its instructors, its students), once ngshare answers."""
    for _ in range(240):
        try:
            with urllib.request.urlopen(base.rstrip("/") + "/healthz", timeout=5):
                break
        except OSError:
            time.sleep(0.5)
    # The hub checks every token ngshare gets: where this starts before the hub does (a pod of
    # its own on Kubernetes), the first calls cannot be answered yet, and are made again.
    for course, (instructors, students) in courses.items():
        for _ in range(150):
            problems = sync_course(base, token, course, instructors, students)
            if problems != [RETRY]:
                break
            time.sleep(2)
        for problem in problems:
            print(f"ngshare_service: {problem}", file=sys.stderr, flush=True)
        if not problems:
            print(f"ngshare_service: course {course}: {len(instructors)} instructors, {len(students)} students",
                  file=sys.stderr, flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--course", action="append", required=True, help="nbgrader's course id (again: another)")
    parser.add_argument("--roster", required=True, help="the hub's roster (hub/roster.py reads it)")
    parser.add_argument("--instructor", action="append", default=[],
                        help="another instructor of every course (its grading service is one already)")  # fmt: skip
    parser.add_argument("--lms", action="store_true",
                        help="logins come from an LMS (LTI 1.3): a course may list nobody")  # fmt: skip
    parser.add_argument("--database", required=True, help="ngshare's database URL")
    parser.add_argument("--storage", required=True, help="the folder where ngshare keeps the files")
    args = parser.parse_args(argv)
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:  # the hub's folder is no package: its files import each other from beside them
        sys.path.insert(0, here)
    from roster import RosterError, load

    try:
        courses = {course.id: course for course in load(args.roster, lms=args.lms)}
    except RosterError as error:
        sys.exit(f"ngshare_service: {error}")
    missing = [course for course in args.course if course not in courses]
    if missing:
        sys.exit(f"ngshare_service: the roster {args.roster} has no course {missing[0]!r} (it has {sorted(courses)})")
    people = {}
    for course in (courses[course_id] for course_id in dict.fromkeys(args.course)):
        instructors = list(dict.fromkeys([course.service, *args.instructor, *course.instructors, *course.tas]))
        people[course.id] = (instructors, [name for name in course.students if name not in instructors])
    me = os.environ["JUPYTERHUB_SERVICE_NAME"]
    base = f"http://127.0.0.1:{urllib.parse.urlparse(os.environ['JUPYTERHUB_SERVICE_URL']).port}"
    base += os.environ["JUPYTERHUB_SERVICE_PREFIX"]
    os.makedirs(args.storage, mode=0o700, exist_ok=True)
    restore_backref_cascade()
    threading.Thread(target=sync_when_up, args=(base, os.environ["JUPYTERHUB_API_TOKEN"], people), daemon=True).start()
    from ngshare.ngshare import main as ngshare_main

    try:
        ngshare_main(["--database", args.database, "--storage", args.storage, "--admins", me])
    except KeyboardInterrupt:  # the hub stopping its services
        pass


if __name__ == "__main__":
    main()
