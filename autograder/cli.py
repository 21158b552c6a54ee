"""``python -m autograder``: a thin command layer over ``autograder.diagnose`` (judge files),
``autograder.grading.grade`` (grade a class), ``autograder.grading.report`` (report on it),
``autograder.grading.publish`` (scores to the LMS over LTI) and ``autograder.grading.lms_export`` (gradebook
files for an LMS's import)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from gradebox.limits import DEFAULTS

from . import i18n
from .host.limit_settings import DEFAULT_JOBS_RULE
from .settings import SETTINGS, SettingError


def _exercise_names() -> list[str]:
    """The declared exercises' names: their declarations are plain data, so neither torch nor a judge
    is imported (`grade` needs neither)."""
    from gradexercises import EXERCISES

    return sorted(EXERCISES)


def _parser() -> argparse.ArgumentParser:
    defaults = DEFAULTS
    jobs = SETTINGS.value("jobs")  # $AUTOGRADER_JOBS, else the default: a bad value stops here, named
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    diagnose = commands.add_parser(
        "diagnose",
        help="judge student files that define an exercise's function",
        description="Print one JSON line per FILE: file, exercise, passed, code, message.",
    )
    diagnose.add_argument("exercise", metavar="EXERCISE", help=f"one of: {', '.join(_exercise_names())}")
    diagnose.add_argument("files", metavar="FILE", nargs="+", help="Python source files")
    diagnose.add_argument(
        "--jobs",
        type=int,
        default=jobs,
        help=f"files judged at once (default: $AUTOGRADER_JOBS, else {DEFAULT_JOBS_RULE}; here %(default)s)",
    )
    diagnose.add_argument(
        "--timeout", type=float, default=defaults.check_seconds, help="seconds per file (default: %(default)s)"
    )
    diagnose.add_argument(
        "--memory-mb",
        type=int,
        default=defaults.memory_mb,
        help="memory limit per file in MiB (default: %(default)s)",
    )
    diagnose.add_argument(
        "--start", choices=("all", "fresh", "dirty"), default="all", help="which starting states to test (default: all)"
    )
    diagnose.add_argument("--seed", type=int, default=0, help="varies models and data (default: 0)")
    diagnose.add_argument(
        "--lang",
        default=i18n.ENGLISH,
        choices=i18n.LANGUAGES,
        help="the language of the message field; every other field stays as it is (default: %(default)s)",
    )

    grade = commands.add_parser(
        "grade",
        help="autograde every submission of an assignment (nbgrader's pipeline, sandboxed, in parallel)",
        description="Grade submitted/*/ASSIGNMENT into the gradebook, as `nbgrader autograde ASSIGNMENT` "
        "would, but in parallel and from a warm sandboxed kernel server. Submissions already graded "
        "to the end are skipped unless --force.",
    )
    grade.add_argument(
        "assignment", metavar="ASSIGNMENT", nargs="+",
        help="one or more: several are graded one after another by the same warm servers",
    )  # fmt: skip
    grade.add_argument(
        "--jobs",
        type=int,
        default=jobs,
        help=f"submissions graded at once (default: $AUTOGRADER_JOBS, else {DEFAULT_JOBS_RULE}; here %(default)s)",
    )
    grade.add_argument("--force", action="store_true", help="grade again what is already graded")
    grade.add_argument("--student", action="append", default=[], help="grade only this student (repeatable)")
    grade.add_argument("--course", default=".", help="the course folder (default: the current folder)")
    grade.add_argument(
        "--shard", metavar="K/N", default=None,
        help="grade only the K-th of N equal groups of the submissions, beside the graders of the other "
        "groups (one process each, any machines sharing the course folder); needs a PostgreSQL gradebook",
    )  # fmt: skip
    _instructor_language_option(grade, "the class table (each student's feedback keeps the language of their "
                                       "edition)")  # fmt: skip

    report = commands.add_parser(
        "report",
        help="write a class report (HTML page and CSV) for a graded assignment",
        description="Write reports/ASSIGNMENT.html (self-contained, plots embedded) and reports/ASSIGNMENT.csv.",
    )
    report.add_argument("assignment", metavar="ASSIGNMENT")
    report.add_argument("--course", default=".", help="the course folder (default: the current folder)")
    report.add_argument("--output", default=None, help="folder for the two files (default: COURSE/reports)")
    _instructor_language_option(report, "the HTML page (the CSV stays English: programs read it)")

    from .grading.lms_export import FORMATS, LEFT_OUT_STATUS, MOODLE_IDS
    from .grading.publish import CONFIG_NAME

    publish = commands.add_parser(
        "publish",
        help="post each student's score to the LMS's gradebook (LTI Advantage Assignment and Grade Services)",
        description="Post the gradebook's scores (nbgrader export's totals) to the assignment's line item in the "
        f"LMS, as the tool registered in the hub's LMS record (--record) or COURSE/{CONFIG_NAME}; print what was "
        "posted and what failed. A rerun posts only changed scores and earlier failures (see "
        ".autograder/published/ASSIGNMENT.json).",
    )
    publish.add_argument("assignment", metavar="ASSIGNMENT", nargs="?")
    publish.add_argument("--course", default=".", help="the course folder (default: the current folder)")
    publish.add_argument("--config", default=None, help=f"the LTI settings (default: COURSE/{CONFIG_NAME})")
    publish.add_argument("--record", default=None, metavar="DIR",
                         help="the course's LMS record folder (default: $AUTOGRADER_LMS_RECORD)")  # fmt: skip
    publish.add_argument("--users", default=None, help="a CSV of student_id,lms_user_id (added to the settings' users)")
    publish.add_argument("--student", action="append", default=[], help="post only this student (repeatable)")
    publish.add_argument("--missing-as-zero", action="store_true", help="post 0 for students with no submission")
    publish.add_argument("--force", action="store_true", help="post every score again, changed or not")
    publish.add_argument("--dry-run", action="store_true", help="say what would be posted; contact nobody")
    publish.add_argument("--jwks", action="store_true", help="print the tool's public key set (to register in the LMS)")

    export = commands.add_parser(
        "export",
        help="write a gradebook file for an LMS's import (Canvas or Moodle), for schools without LTI",
        description="Write COURSE/reports/ASSIGNMENT-FORMAT.csv in the column layout the LMS's gradebook import "
        "documents, with nbgrader export's totals. Students the file cannot name (Moodle: no email, or no "
        "ID number, known) are left out and listed last.",
        epilog=f"exit status: 0 every student is in the file; {LEFT_OUT_STATUS} the file is written but some "
        "students are left out (listed last, with the option that names them); 2 nothing is written (an error, "
        "or no student would be in the file).",
    )
    export.add_argument("assignment", metavar="ASSIGNMENT")
    export.add_argument("--format", required=True, choices=FORMATS, dest="fmt", help="the LMS")
    export.add_argument("--course", default=".", help="the course folder (default: the current folder)")
    export.add_argument("--output", default=None, help="the file (default: COURSE/reports/ASSIGNMENT-FORMAT.csv)")
    export.add_argument("--roster", default=None, help="a CSV with student_id and the LMS's ids (docs/instructor.md)")
    export.add_argument("--title", default=None, help="the grade column's title (default: ASSIGNMENT)")
    export.add_argument("--lms-id", default=None, help="Canvas: the assignment's id (without it, a new one is made)")
    export.add_argument("--moodle-id", default="email", choices=tuple(MOODLE_IDS),
                        help="Moodle: the user field to match on (default: %(default)s)")  # fmt: skip
    export.add_argument("--missing-as-zero", action="store_true", help="0 for no submission (default: empty)")

    settings = commands.add_parser(
        "settings",
        help="print every setting, its value, where the value came from, and its help",
        description="Every setting of the course (autograder/settings.py), read as grading would read it: "
        "from nbgrader_config.py (--config), else the environment, else its default.",
    )
    settings.add_argument("--json", action="store_true", help="one JSON list, for machines")
    settings.add_argument("--config", default="nbgrader_config.py",
                          help="the nbgrader config to read, if it exists (default: %(default)s here)")  # fmt: skip
    return parser


def _instructor_language_option(command: argparse.ArgumentParser, what: str) -> None:
    command.add_argument(
        "--lang", default=None, choices=i18n.LANGUAGES,
        help=f"the language of {what} (default: $AUTOGRADER_LANGUAGE, else en)",
    )  # fmt: skip


def _instructor_language(args) -> str:
    """``--lang``, else the instructor's setting (``AUTOGRADER_LANGUAGE``): a bad setting raises ValueError."""
    from .grading.language import instructor_language

    return args.lang or instructor_language()


def _fail(message: str) -> int:
    from .grading.terminal import terminal_safe  # errors may name a student's file or id

    print(f"autograder: {terminal_safe(message, keep_newlines=True)}", file=sys.stderr)
    return 2


def _quiet_gradebook() -> None:
    """nbgrader's gradebook code makes SQLAlchemy warn ("Object of type <SubmittedAssignment> not in
    session, add operation along 'Student.submissions' will not proceed") on every submission,
    under `nbgrader autograde` as well: its autoflush, harmless, and nothing an instructor can act
    on. The two commands that read the gradebook keep those warnings (and only those) out of their
    output."""
    import warnings

    from sqlalchemy.exc import SAWarning

    warnings.filterwarnings("ignore", category=SAWarning)


def grade_main(args) -> int:
    from .grading.course_assignment import GradeError
    from .grading.grade import Grader, Shard
    from .host.bwrap import SandboxError

    # What grading writes (autograded/, .autograder/, a SQLite gradebook) is the grader account's only.
    os.umask(0o077)
    if args.jobs < 0:
        return _fail("--jobs must not be negative")
    try:
        lang = _instructor_language(args)
    except ValueError as error:
        return _fail(str(error))
    _quiet_gradebook()
    assignments = list(dict.fromkeys(args.assignment))  # each once, in the order given
    try:
        shard = Shard.parse(args.shard) if args.shard is not None else None
        # Every assignment and student is checked before anything is graded.
        graders = [Grader(args.course, a, jobs=args.jobs, force=args.force, shard=shard) for a in assignments]
        for grader in graders:
            grader.check(args.student)
    except (GradeError, SandboxError) as error:
        return _fail(str(error))
    failed = False
    for number, grader in enumerate(graders):
        try:
            summary = grader.run(args.student)
        except (GradeError, SandboxError) as error:
            return _fail(str(error))
        if number:
            print()
        # The instructor's language, for what the instructor reads only: grading itself ran outside
        # it, so each submission's feedback is in the submission's own edition.
        with i18n.speaking(lang):
            for line in summary.lines():
                print(line)
            _print_class_table(args.course, grader.assignment, summary)
        if summary.interrupted:
            return 130
        failed = failed or bool(summary.count("failed"))
    return 1 if failed else 0


def _print_class_table(course: str, assignment: str, summary) -> None:
    """The students of this run, their scores, codes and notes (``report.class_table``)."""
    from .grading.course_assignment import GradeError
    from .grading.report import build_report, class_table

    students = [o.student for o in summary.outcomes if o.status in ("graded", "skipped", "failed")]
    if not students:
        return
    try:
        report = build_report(course, assignment)
    except GradeError:
        return
    print()
    for line in class_table(report, students):
        print(line.rstrip())


def report_main(args) -> int:
    from .grading.course_assignment import GradeError
    from .grading.report import make_report

    os.umask(0o077)  # the report shows every student's grades: the grader account's only
    try:
        lang = _instructor_language(args)
    except ValueError as error:
        return _fail(str(error))
    _quiet_gradebook()
    try:
        html_path, csv_path = make_report(args.course, args.assignment, args.output, lang)
    except GradeError as error:
        return _fail(str(error))
    print(f"wrote {html_path}")
    print(f"wrote {csv_path}")
    return 0


# What publish needs beyond the student set (requirements-instructor.txt): the LTI client, its key library.
INSTRUCTOR_MODULES = ("pylti1p3", "jwcrypto", "cryptography")


def publish_main(args) -> int:
    import importlib.util

    missing = [name for name in INSTRUCTOR_MODULES if importlib.util.find_spec(name) is None]
    if missing:  # a .venv that `course.py lab` set up has the student set only
        return _fail(
            f"publish needs the instructor's set, not installed here (no {', '.join(missing)}): run "
            "`python3 course.py install instructor`, or `pip install -r requirements-instructor.txt`."
        )
    from .grading.course_assignment import GradeError
    from .grading.publish import CONFIG_NAME, PublishError, publish, tool_jwks

    os.umask(0o077)  # the ledger names students and their scores
    _quiet_gradebook()
    try:
        if args.jwks:
            record = args.record or SETTINGS.value("lms_record") or None
            print(json.dumps(tool_jwks(args.config or os.path.join(args.course, CONFIG_NAME), record), indent=1))
            return 0
        if not args.assignment:
            return _fail("publish needs an ASSIGNMENT")
        summary = publish(args.course, args.assignment, args.config, args.users, args.student or None,
                          args.missing_as_zero, args.force, args.dry_run, args.record)  # fmt: skip
    except (GradeError, PublishError) as error:
        return _fail(str(error))
    from .grading.terminal import terminal_safe  # student ids, the LMS's error messages

    for line in summary.lines():
        print(terminal_safe(line))
    return 1 if summary.count("failed") else 0


def export_main(args) -> int:
    from .grading.course_assignment import GradeError
    from .grading.lms_export import export_lms

    os.umask(0o077)  # every student's grade
    _quiet_gradebook()
    try:
        done = export_lms(args.course, args.assignment, args.fmt, args.output, args.roster, args.title,
                          args.lms_id, args.moodle_id, args.missing_as_zero)  # fmt: skip
    except GradeError as error:
        return _fail(str(error))
    from .grading.terminal import terminal_safe  # the lines list student ids

    for line in done.lines():
        print(terminal_safe(line))
    return done.status


def _start_server() -> None:
    from .host.bwrap import SandboxError
    from .host.client import shared_server

    try:
        shared_server("exercise")
    except SandboxError:
        pass  # said again, with its message, when the first file needs the server


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except SettingError as error:  # --jobs's default comes from the environment
        return _fail(str(error))
    if args.command == "settings":
        return settings_main(args)
    if args.command == "grade":
        return grade_main(args)
    if args.command == "report":
        return report_main(args)
    if args.command == "publish":
        return publish_main(args)
    if args.command == "export":
        return export_main(args)
    return diagnose_main(args)


def _nbgrader_config(path: str):
    """The config nbgrader_config.py at ``path`` sets, or None when there is no such file."""
    if not os.path.isfile(path):
        return None
    from traitlets.config.loader import PyFileConfigLoader

    folder, name = os.path.split(os.path.abspath(path))
    return PyFileConfigLoader(name, path=folder).load_config()


def settings_main(args) -> int:
    """``python -m autograder settings``: ``autograder.settings.described``, as text or JSON."""
    from .settings import described, described_text

    try:
        rows = described(config=_nbgrader_config(args.config))
    except SettingError as error:
        return _fail(f"a setting does not fit:\n{error}")
    print(json.dumps(rows, indent=1) if args.json else described_text(rows))
    return 0


def diagnose_main(args) -> int:
    if args.exercise not in _exercise_names():
        known = ", ".join(_exercise_names())
        return _fail(f"unknown exercise {args.exercise!r}; choose one of: {known}")
    if args.timeout <= 0 or args.memory_mb <= 0 or args.jobs < 0:
        return _fail("--timeout and --memory-mb must be positive, --jobs not negative")
    import threading
    from dataclasses import replace

    from .host.bwrap import SandboxError

    limits = replace(DEFAULTS, check_seconds=args.timeout, memory_mb=args.memory_mb)
    # The warm server starts (and imports torch, in the sandbox) while the judging process imports
    # it too: the first verdict comes about one torch import after the command starts.
    from .judge.pool import shared_pool

    shared_pool(limits)
    threading.Thread(target=_start_server, daemon=True).start()
    from .diagnose import diagnose_files

    try:
        with i18n.speaking(args.lang):  # the messages only: codes, fields and their order never change
            for path, verdict in diagnose_files(args.exercise, args.files, args.jobs, args.start, args.seed, limits):
                print(verdict.to_json(path), flush=True)
    except SandboxError as error:
        return _fail(str(error))
    return 0
