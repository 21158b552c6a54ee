"""``python -m autograder grade``: nbgrader's own autograding, for a whole class, fast.

Each submission goes through nbgrader's ``Autograde`` converter, configured by the course's
nbgrader_config.py, exactly as ``nbgrader autograde`` runs it: the same sanitizing, the same
sandboxed execution, the same gradebook.  What changes is around it:

- several submissions are graded at once (one thread each; the work is in the kernels), and
  every kernel is forked from one warm sandboxed server instead of a cold interpreter;
- a submission is graded only if it has no complete grade yet (or with ``force``), where
  complete means its graded notebook carries the mark of the last autograding step, so a run
  that was interrupted, or a submission that failed, is simply graded again next time;
- a progress line with an estimate of the time left, and a summary at the end;
- with ``shard``, one of several graders side by side on one gradebook server (see locks.py).
"""

from __future__ import annotations

import glob
import logging
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

import nbformat
from tqdm import tqdm

from ..host.limit_settings import DEFAULT_JOBS, SandboxLimits
from .course_assignment import GRADED_FROM, CourseAssignment, GradeError
from .gradebook import shared_engines
from .ledger import write_ledger
from .locks import Shard, claim, grading_lock
from .terminal import terminal_safe

__all__ = ["GradeError", "Grader", "Shard", "Summary"]


@dataclass
class SubmissionResult:
    """What one grading run did with one student's submission."""

    student: str
    status: str  # "graded", "skipped", "failed" or "busy" (another grader has it)
    seconds: float = 0.0
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    review: list[str] = field(default_factory=list)  # checks the grader could not decide alone
    graded_from: str | None = None  # the fingerprint of the notebooks this grading read (course.py)
    old_feedback: bool = False  # graded again while feedback from an earlier grading is still there


@dataclass
class Summary:
    assignment: str
    outcomes: list[SubmissionResult]
    seconds: float
    interrupted: bool = False
    shard: Shard | None = None

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    def lines(self) -> list[str]:
        """The summary, in the instructor's language (``grade`` prints it inside ``speaking``)."""
        from ..i18n import _, ngettext

        graded, skipped, failed = self.count("graded"), self.count("skipped"), self.count("failed")
        done = graded + failed
        # i18n: the optional clauses of the summary's first line; each starts with its own separator
        rate = _(", {seconds} s per submission").format(seconds=f"{self.seconds / done:.2f}") if done else ""
        busy = self.count("busy")
        busy = _(", {n} left to another grader that was grading them").format(n=busy) if busy else ""
        part = _(" (shard {shard}: {n} of the submissions)").format(shard=self.shard, n=len(self.outcomes))
        part = part if self.shard else ""
        lines = [
            _(
                "{assignment}{part}: {graded} graded, {skipped} already graded (skipped), {failed} failed{busy} in "
                "{seconds} s{rate}."
            ).format(
                assignment=self.assignment,
                part=part,
                graded=graded,
                skipped=skipped,
                failed=failed,
                busy=busy,
                seconds=f"{self.seconds:.1f}",
                rate=rate,
            )  # fmt: skip
        ]
        # Student ids, reasons and review items quote the students' text: no control character
        # of theirs reaches the terminal (terminal.py).
        for outcome in self.outcomes:
            if outcome.status == "failed":
                lines.append(_("  failed: {student}: {reason}").format(
                    student=terminal_safe(outcome.student), reason=terminal_safe(outcome.reason)))  # fmt: skip
        review = [o for o in self.outcomes if o.review]
        if review:
            lines.append(ngettext("{n} graded with checks the grader could not decide alone (needs review):",
                                  "{n} graded with checks the grader could not decide alone (needs review):",
                                  len(review)).format(n=len(review)))  # fmt: skip
            lines += [_("  needs review: {student}: {notes}").format(student=terminal_safe(o.student),
                                                                   notes=terminal_safe("; ".join(o.review)))
                      for o in review]  # fmt: skip
        stale = [o.student for o in self.outcomes if o.status == "graded" and o.old_feedback]
        if stale:
            who = ", ".join(terminal_safe(s) for s in stale)
            again = f"nbgrader generate_feedback {terminal_safe(self.assignment)} --force"
            lines.append(
                ngettext(
                    "{n} graded again with feedback from an earlier grading ({who}): `{command}` makes it anew.",
                    "{n} graded again with feedback from an earlier grading ({who}): `{command}` makes it anew.",
                    len(stale),
                ).format(n=len(stale), who=who, command=again)  # fmt: skip
            )
        if self.interrupted:
            lines.append(_("Interrupted: run the same command again to grade the rest (nothing graded is lost)."))
        return lines


class _ThreadLog(logging.Handler):
    """Keeps each thread's nbgrader error messages, to say why a submission failed."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: dict[int, list[str]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.setdefault(threading.get_ident(), []).append((record.levelno, record.getMessage()))

    def take(self) -> list[str]:
        return self.messages.pop(threading.get_ident(), [])


def _failure_reason(messages: list[tuple[int, str]], error: BaseException | None) -> str:
    errors = [m for level, m in messages if level >= logging.ERROR
              and not m.startswith(("There was an error processing", "Please see"))]  # fmt: skip
    text = errors[-1] if errors else (f"{type(error).__name__}: {error}" if error else "unknown error")
    lines = [line for line in text.strip().splitlines() if line.strip()]
    reason = lines[-1][:300] if lines else text[:300]
    # nbgrader only warns about the cause of its most common failure: a renamed notebook.
    skipped = [m.split(": ", 1)[-1] for level, m in messages if m.startswith("Skipping unknown notebook")]
    if skipped:
        names = ", ".join(os.path.basename(path) for path in skipped)
        reason = f"{reason} (the submission's notebook {names} is not one of the assignment's notebooks)"
    return reason


class Grader:
    """Grades one assignment's submissions with nbgrader's Autograde converter."""

    def __init__(
        self, course: str, assignment: str, jobs: int = DEFAULT_JOBS, force: bool = False, stream=None, warm=True,
        shard: Shard | None = None,
    ):  # fmt: skip
        self.warm = warm
        self.view = CourseAssignment(course, assignment)
        self.view.check_secret()
        self.course, self.assignment = self.view.folder, assignment
        self.jobs = jobs or DEFAULT_JOBS  # 0 (--jobs 0): the default too
        self.force = force
        self.stream = stream if stream is not None else sys.stderr
        self.app, self.coursedir = self.view.app, self.view.coursedir
        self.thread_log = _ThreadLog()  # nbgrader's messages, kept per thread, shown only for a failure
        self.shard = shard
        if shard is not None and shard.count > 1 and self.coursedir.db_url.startswith("sqlite"):
            raise GradeError(
                "--shard needs a gradebook server: this course's gradebook is a SQLite file, which nbgrader "
                "does not support for graders writing at once. Point AUTOGRADER_DB_URL (read by "
                "nbgrader_config.py) at PostgreSQL, or grade in one process, where --jobs sets the parallelism."
            )

    def submissions(self) -> list[str]:
        return self.view.submissions()

    def is_complete(self, student: str) -> bool:
        return self.view.is_complete(student)

    # -- grading -----------------------------------------------------------------------------
    def grade_one(self, student: str) -> SubmissionResult:
        with claim(self.course, self.assignment, student) as mine:
            if not mine:
                return SubmissionResult(student, "busy", reason="another grader is grading it")
            if not self.force and self.is_complete(student):
                return SubmissionResult(student, "skipped")  # graded by another grader since this run started
            return self._grade(student)

    def _grade(self, student: str) -> SubmissionResult:
        from nbgrader.coursedir import CourseDirectory

        started = time.monotonic()
        graded_from = self.view.fingerprint(student)  # before nbgrader reads them: what this grading sees
        self.thread_log.take()
        coursedir = CourseDirectory(parent=self.app)
        coursedir.assignment_id, coursedir.student_id = self.assignment, student
        error: BaseException | None = None
        try:
            _ConcurrentAutograde(coursedir=coursedir, parent=self.app, force=True).start()
        except Exception as caught:  # noqa: BLE001 - nbgrader raises after logging why
            error = caught
        messages = self.thread_log.take()
        seconds = time.monotonic() - started
        if error is not None:
            return SubmissionResult(
                student, "failed", seconds, _failure_reason(messages, error), graded_from=graded_from
            )
        notes, review = self._notes(student)
        # nbgrader's generate_feedback keeps a feedback folder unless the collected timestamp is newer,
        # and a download from an LMS has none: the grade changed, the feedback would not.
        old_feedback = os.path.isdir(self.view.folder_of("feedback", student))
        return SubmissionResult(student, "graded", seconds, notes=notes, review=review, graded_from=graded_from,
                                old_feedback=old_feedback)  # fmt: skip

    def _warm_up_shared_cells(self) -> None:
        """Run each released notebook's shared cells (see execute.py) while grading starts."""
        from .execute import SandboxedExecute, warm_up

        if not SandboxedExecute(config=self.app.config).warm_start:
            return
        folder = self.coursedir.format_path(self.coursedir.release_directory, ".", self.assignment)
        for path in sorted(glob.glob(os.path.join(folder, "*.ipynb"))):
            released = nbformat.read(path, as_version=4)
            threading.Thread(target=warm_up, args=(released,), daemon=True).start()

    def _notes(self, student: str) -> tuple[list[str], list[str]]:
        """The grading notes and the needs-review items of a student's graded notebooks."""
        notes, review = [], []
        for nb in self.view.graded_notebooks(student):
            info = nb.metadata.get("autograder", {})
            notes += info.get("notes", [])
            review += info.get("review", [])
        return notes, review

    def run(self, students: list[str] | None = None) -> Summary:
        started = time.monotonic()
        # nbgrader sets this around each autograding pass and deletes it afterwards; set for
        # the whole run, concurrent passes cannot delete it from under each other.
        os.environ["NBGRADER_EXECUTION"] = "autograde"
        # nbgrader's logger is one per process (named after the app's class): this run's from now on.
        self.app.log.handlers[:] = [self.thread_log]
        # Each converter changes into the course folder and back; starting there, "back" is
        # the same folder for every thread.
        here = os.getcwd()
        os.chdir(self.course)
        try:
            with grading_lock(self.course, self.shard), shared_engines():
                return self._run(students, started)
        finally:
            os.chdir(here)

    def check(self, students: list[str] | None = None) -> list[str]:
        """The students with a submission; GradeError for what would stop this run before it grades
        anything: no submission at all (outside a shard), or one of ``students`` without one."""
        everyone = self.submissions()
        unknown = sorted(set(students or ()) - set(everyone))
        if unknown:
            raise GradeError(f"No submission of {self.assignment} from: {', '.join(unknown)}.")
        if not everyone and self.shard is None:
            folder = self.coursedir.format_path(self.coursedir.submitted_directory, "<student>", self.assignment)
            raise GradeError(f"No submissions of {self.assignment} to grade (looked for {folder}).")
        return everyone

    def _run(self, students: list[str] | None, started: float) -> Summary:
        submitted = self.check(students)
        everyone = [s for s in submitted if s in students] if students else submitted
        if self.shard is not None:
            everyone = [s for s in self.shard.take(submitted) if s in everyone]
            if not everyone:
                return Summary(self.assignment, [], time.monotonic() - started, shard=self.shard)
        todo = [s for s in everyone if self.force or not self.is_complete(s)]
        outcomes = {s: SubmissionResult(s, "skipped") for s in everyone if s not in todo}
        if todo and self.warm:
            # The judging processes import torch and the judges while the servers boot, rather
            # than on the first submission's path.  Started only now, with the course locked and
            # work to do: a run that is refused or has nothing to grade says so at once and starts
            # nothing.
            from ..judge.pool import shared_pool

            shared_pool(SandboxLimits(config=self.app.config).limits())
        return self._grade_all(todo, everyone, started, outcomes)

    def _grade_all(self, todo: list[str], everyone: list[str], started: float, outcomes: dict) -> Summary:
        from ..host.client import shared_server

        interrupted = False
        if len(todo) == 1:
            # A server that has run the shared cells pays for itself from the second notebook on: the
            # first runs every cell (its outputs become the reference), so one submission would start
            # it for its scoring job alone, which runs the shared cells itself for less.
            self.app.config.SandboxedExecute.warm_start = False
        if todo:
            self._warm_up_shared_cells()
            shared_server("kernel")  # start the warm server once, before the clock of the first notebook
        progress = _Progress(len(todo), self.stream)  # its clock starts once the warm server is up
        if todo:
            pool = ThreadPoolExecutor(max_workers=min(self.jobs, len(todo)))
            futures = {pool.submit(self.grade_one, s): s for s in todo}
            try:
                for future in as_completed(futures):
                    outcome = future.result()
                    outcomes[outcome.student] = outcome
                    progress.update(outcome)
                    if outcome.status not in ("graded", "failed"):
                        continue  # another grader's to record
                    write_ledger(self.course, self.assignment, {outcome.student: {
                        "status": outcome.status, "reason": outcome.reason,
                        "seconds": round(outcome.seconds, 2), "when": time.strftime("%Y-%m-%d %H:%M:%S"),
                        GRADED_FROM: outcome.graded_from,
                    }})  # fmt: skip
            except KeyboardInterrupt:
                interrupted = True
                for future in futures:
                    future.cancel()
                shared_server("kernel").close()  # stops every running kernel; their submissions stay ungraded
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
                progress.finish()
        ordered = [outcomes[s] for s in everyone if s in outcomes]
        return Summary(self.assignment, ordered, time.monotonic() - started, interrupted, self.shard)


def _concurrent_autograde():
    from nbgrader.converters import Autograde
    from nbgrader.converters.base import BaseConverter

    class ConcurrentAutograde(Autograde):
        """nbgrader's Autograde converter, minus its toggling of NBGRADER_EXECUTION (its
        ``utils.setenv`` deletes the variable after each pass, which breaks a pass running in
        another thread); ``Grader.run`` sets the variable once for the whole run instead."""

        def convert_single_notebook(self, notebook_filename: str) -> None:
            self._sanitizing = True
            self._init_preprocessors()
            BaseConverter.convert_single_notebook(self, notebook_filename)
            notebook_filename = os.path.join(self.writer.build_directory, os.path.basename(notebook_filename))
            self._sanitizing = False
            self._init_preprocessors()
            try:
                BaseConverter.convert_single_notebook(self, notebook_filename)
            finally:
                self._sanitizing = True

    return ConcurrentAutograde


def _ConcurrentAutograde(**kwargs):  # noqa: N802 - builds the class on first use (nbgrader imports slowly)
    return _concurrent_autograde()(**kwargs)


class _Progress:
    """Progress on stderr, with tqdm: a live bar on a terminal; elsewhere (a CI log, a file) one
    line per graded submission, in the same format.

    The estimate of the time left is the course's, not tqdm's: tqdm's rate counts the warm-up (the
    servers starting, the first submissions running the lesson's shared cells) as if every
    submission cost it, so its early estimates were many times too long.  Here the clock of the
    estimate starts when the first submission is done: until a second one is, the ETA shows "…";
    after, it is the time per submission since that first one times the submissions left."""

    FORMAT = "{l_bar}{bar:30}| {n_fmt}/{total_fmt} graded, {elapsed} spent{postfix}"

    def __init__(self, total: int, stream) -> None:
        self.total, self.stream, self.done, self.failed = total, stream, 0, 0
        self.live = hasattr(stream, "isatty") and stream.isatty()
        self.started = time.monotonic()
        self.first_done: float | None = None
        self.bar = tqdm(total=total, file=stream, bar_format=self.FORMAT, disable=not self.live or not total)
        self.bar.set_postfix_str(self._postfix(), refresh=False)

    def eta(self) -> str:
        if self.first_done is None or self.done < 2:
            return "…"
        per = (time.monotonic() - self.first_done) / (self.done - 1)
        return tqdm.format_interval(per * (self.total - self.done))

    def _postfix(self) -> str:
        return f"ETA {self.eta()}, {self.failed} failed"  # tqdm puts ", " before it

    def update(self, outcome: SubmissionResult) -> None:
        self.done += 1
        self.failed += outcome.status == "failed"
        if self.first_done is None:
            self.first_done = time.monotonic()
        if self.live:
            self.bar.set_postfix_str(self._postfix(), refresh=False)
            self.bar.update(1)
            return
        line = tqdm.format_meter(self.done, self.total, time.monotonic() - self.started, bar_format=self.FORMAT,
                                 postfix=self._postfix(), ncols=100)  # fmt: skip
        self.stream.write(f"{line}  ({terminal_safe(outcome.student)}: {outcome.status})\n")
        self.stream.flush()

    def finish(self) -> None:
        self.bar.close()
