"""Scores that student code cannot forge: each test cell's checks run outside the student's kernel.

Inside the kernel, everything the notebook does is the student's to change: the check functions,
``sys.settrace``, an import hook, an input transformer that turns later cells into ``pass``.  So
while grading, the checks in test cells do not run there (``autograder.checks`` only says so,
and fails the cell in case this step is missing), and ``ScoreChecks``, right after the notebook
ran, scores them from outside:

* the plan: the submission's answer cells and the cells the student added, and each test cell's
  checks (read from the test cell's code, which nbgrader has put back to the instructor's version,
  hidden tests included), in notebook order;
* one job of the sandbox's server (the one that ran the lesson's shared cells, so the answers run
  where they ran in the notebook) executes the answer cells in order and, at each test cell, runs
  its checks, each scenario in a child of that job (``gradebox.jobs.score_job``), and sends back one
  record per scenario: what the student's code did, never a verdict;
* the judge runs in judging processes of the grader's (``autograder.judge.pool``), on the
  records; each test cell's outputs become the verdicts (an error when a check fails, which
  nbgrader scores 0) and its metadata holds them as data (``metadata.autograder.checks``), which
  the report reads.

A test cell the kernel did not reach (the notebook was stopped earlier by a limit: a 50 MB debug
print, a cell that hangs) is scored all the same: the job runs the answer cells itself, with their
output thrown away, so a stop costs what the notebook shows, never the score.  Where the grader
cannot decide a check from the student's code alone (the scoring job was stopped before it, a record
it cannot read), the check fails and the submission is marked "needs review" (``add_review``):
``grade``'s summary, the report and its CSV list it.  Quiz answers are read from the answer cells,
into the quiz check cell's metadata.

The graded copy speaks the learner's language (``autograder/grading/language.py``: the notebook's
edition, or the assignment's): each verdict's ``message`` in the metadata stays English (the report
reads it) and ``shown`` holds what the learner reads, judged in their language by the same worker.

The checks inside a test cell's hidden block (``### BEGIN HIDDEN TESTS``) do not run with the seed
written there, which anyone who reads the course's sources knows: each runs with a seed derived
from the course secret (``autograder.grading.secret``), the same at every grading of the course.
The job gets only that number; the graded notebook keeps no derived seed.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
from dataclasses import replace
from inspect import Parameter, Signature

from nbformat.v4 import new_output
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import ClearHiddenTests, NbGraderPreprocessor
from traitlets import Unicode, default

from gradebox.display import shown_lines
from gradebox.limits import SCORE_GRACE_SECONDS, Limits
from gradebox.named_checks import signature
from gradebox.not_yet import FAILED_LINE
from gradexercises import EXERCISES

from ..codes import in_words
from ..host.limit_settings import SandboxLimits
from ..i18n import ENGLISH, N_, _, speaking
from .cell_label import recorded_label
from .execute import NOT_RUN, STOPPED, SandboxedExecute, error_output, shared_cells
from .language import english_lesson, learner_language
from .notes import add_note, add_review
from .secret import configured_path, course_secret, default_path, derive_seed
from .structure import released_notebook

# How a test cell calls each check function of autograder.checks: ``check`` names its exercise in
# its first argument; each named check (``check_train_step``) is declared by its exercise.
GENERIC_CHECK = Signature([Parameter(name, Parameter.POSITIONAL_OR_KEYWORD) for name in ("exercise", "fn")]
                          + [Parameter(name, Parameter.POSITIONAL_OR_KEYWORD, default=None)
                             for name in ("start", "seed", "timeout")])  # fmt: skip
CHECKS: dict[str, tuple[str | None, Signature]] = {
    "check": (None, GENERIC_CHECK),
    **{e.check: (e.name, signature(e)) for e in EXERCISES.values() if e.check},
}


def _meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def _literal(node, default=None):
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):  # {[]}: a set of a list
        return default


HIDDEN_BEGIN, HIDDEN_END = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"  # nbgrader's default delimiters


def hidden_lines(source: str, begin: str = HIDDEN_BEGIN, end: str = HIDDEN_END) -> set[int]:
    """The numbers (from 1) of the lines inside the cell's hidden blocks, read as nbgrader reads them:
    a line that contains ``begin`` opens a block, one that contains ``end`` closes it (a block left
    open runs to the end of the cell)."""
    inside, found = False, set()
    for number, line in enumerate(source.split("\n"), start=1):
        if begin in line:
            inside = True
        elif end in line:
            inside = False
        elif inside:
            found.add(number)
    return found


_UNREAD = object()  # a start or seed the cell computes: not a literal


def checks_in(source: str, begin: str = HIDDEN_BEGIN, end: str = HIDDEN_END) -> list[dict]:
    """The checks a test cell's code calls: exercise, function name, start and seed each, and whether
    the call is in a hidden block (between the lines that contain ``begin`` and ``end``).  A start or
    seed that is not a literal reads as the default (``unread_checks`` names such calls)."""
    hidden = hidden_lines(source, begin, end)
    found = []
    for node in _check_calls(source):
        read = _read_call(node)
        if isinstance(read, dict):
            start, seed = read["start"], read["seed"]
            read.update(start="fresh" if start is _UNREAD else start, seed=0 if seed is _UNREAD else seed)
            found.append({**read, "line": (node.lineno, node.col_offset), "hidden": node.lineno in hidden})
    found.sort(key=lambda c: c.pop("line"))  # in the order the cell calls them
    return found


def unread_checks(source: str) -> list[str]:
    """Each call of a check in a test cell's code that ``checks_in`` cannot read exactly as the cell
    runs it, and why: arguments unpacked or computed (a loop over starts), a check called through an
    attribute, an undeclared exercise, a start the exercise does not take.  Such a call would be
    scored with other arguments than the cell's, or not at all; the course's own notebooks have none
    (a test says so), and an author's new test cell is checked the same way."""
    found = []
    for node in _check_calls(source, attributes=True):
        if isinstance(node.func, ast.Attribute):
            found.append(f"line {node.lineno}: {node.func.attr} is called through an attribute; import it by name")
            continue
        read = _read_call(node)
        why = read if isinstance(read, str) else _why_not_exact(read)
        if why:
            found.append(f"line {node.lineno}: {node.func.id}: {why}")
    return found


def _check_calls(source: str, attributes: bool = False) -> list[ast.Call]:
    """The calls of a check function in ``source`` (``check_train_step(...)``; with ``attributes``,
    ``checks.check_train_step(...)`` too), none if it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CHECKS:
            found.append(node)
        elif attributes and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            found += [node] if node.func.attr in CHECKS else []
    return found


def _read_call(node: ast.Call) -> dict | str:
    """A check call as data (``exercise``, ``function``; ``start`` and ``seed`` as written, ``_UNREAD``
    when not literals), or why it cannot be read at all."""
    exercise, shape = CHECKS[node.func.id]
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return "its arguments are unpacked (*args or **options)"
    try:
        given = shape.bind(*node.args, **{k.arg: k.value for k in node.keywords}).arguments
    except TypeError as error:  # a call the function itself would refuse: the cell fails when it runs
        return f"the check would refuse these arguments ({error})"
    if exercise is None:
        exercise = _literal(given["exercise"], _UNREAD)
        if not isinstance(exercise, str):
            return "its exercise is not a literal string"
    fn = given.get("fn", given.get(exercise))
    if not isinstance(fn, ast.Name):
        return "the function is not passed by its name"
    start = _literal(given["start"], _UNREAD) if given.get("start") is not None else "fresh"
    seed = _literal(given["seed"], _UNREAD) if given.get("seed") is not None else 0
    return {"exercise": exercise, "function": fn.id, "start": start, "seed": seed}


def _why_not_exact(read: dict) -> str | None:
    """Why a call ``checks_in`` reads would not be scored as written, if it would not."""
    exercise, start, seed = read["exercise"], read["start"], read["seed"]
    if exercise not in EXERCISES:
        return f"no exercise is named {exercise!r}"
    if start is _UNREAD or seed is _UNREAD:
        return "its start or seed is not a literal (each call must name its own)"
    if type(seed) is not int:
        return f"its seed {seed!r} is not a whole number"
    if start != "fresh" and start not in EXERCISES[exercise].starts:
        return f"{exercise} takes no start {start!r}"
    return None


def quiz_question(source: str) -> tuple[str, str] | None:
    """(assignment, question) of a ``check_quiz("<assignment>", "qN", qN)`` cell."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "check_quiz":
            values = [_literal(a) for a in node.args[:2]]
            if len(values) == 2 and all(isinstance(v, str) for v in values):
                return values[0], values[1]
    return None


def quiz_answer(source: str, question: str):
    """The value the answer cell gives ``question`` (``q1 = "b"``), or None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    answer = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == question for t in node.targets):
            answer = _literal(node.value)
    return answer


# i18n: {name} is an exercise's name (train_step)
UNANSWERED = N_("Not answered yet: the answer cell of {name} is still as it was handed out.")


def _normal(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def unanswered(nb, released) -> set[str]:
    """Grade ids of the answer cells that are still as the released notebook has them."""
    if released is None:
        return set()
    handed_out = {_meta(c).get("grade_id"): _normal(c.source) for c in released.cells if _meta(c).get("solution")}
    return {
        _meta(c)["grade_id"]
        for c in nb.cells
        if _meta(c).get("solution") and handed_out.get(_meta(c).get("grade_id")) == _normal(c.source)
    }


def _label(cell) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id") or "without a grade id"


def _seen_as(cell, index: int) -> str:
    """The answer cell as the student's own notebook shows it (``cell_label``: "In [7] of your
    notebook", or its position there), never the grading kernel's count; a notebook graded as
    submitted (no released copy to rebuild on) has no label: its grade id, or its position here."""
    label = recorded_label(cell)
    if label:
        return label
    grade_id = _meta(cell).get("grade_id")
    # English, as cell_label's labels are: the label is the code's file name, which goes into the
    # English message the metadata keeps for the report
    return f"your {grade_id} answer cell" if grade_id else f"cell {index + 1}"


def _did_not_run(cell) -> bool:
    return any(
        o.get("output_type") == "error" and o.get("ename") in (NOT_RUN, STOPPED) for o in cell.get("outputs", [])
    )


def scoring_limits(config) -> Limits:
    """The sandbox's limits for scoring, where an answer cell gets the time it had in the kernel:
    nbgrader's ExecutePreprocessor.timeout when the course sets it (it is SandboxedExecute's
    timeout, which is SandboxLimits.cell_seconds unless set)."""
    limits = SandboxLimits(config=config).limits()
    cell_seconds = SandboxedExecute(config=config).timeout
    return replace(limits, cell_seconds=int(cell_seconds)) if cell_seconds else limits


class ScoreChecks(NbGraderPreprocessor):
    """Score each test cell's checks outside the student's kernel (see the module's docstring)."""

    secret_file = Unicode(
        help="The file that holds the course secret the hidden checks' seeds are derived from. Empty: "
        ".autograder/course-secret in the course folder, made by the first grading that needs it. "
        "Default: the environment variable AUTOGRADER_SECRET_FILE. The file must be the grader's (or "
        "root's), mode 600, and not a link; every machine that grades one course needs the same one."
    ).tag(config=True)

    @default("secret_file")
    def _secret_file_default(self) -> str:
        return configured_path()

    def preprocess(self, nb, resources):
        with speaking(learner_language(nb, resources)):
            return self._preprocess(nb, resources)

    def _preprocess(self, nb, resources):
        from ..host.client import shared_server, template_server
        from ..judge.pool import shared_pool

        plan, targets = self._plan(nb)
        self._quizzes(nb)
        if not targets:
            return nb, resources
        self._hide_seeds(nb, targets, resources)
        limits = scoring_limits(self.config)
        pool = shared_pool(limits)  # judging starts while the job runs
        released = released_notebook(self.config, resources)
        template = [c.source for c in shared_cells(released) if c.cell_type == "code"] if released is not None else []
        warm = template and SandboxedExecute(config=self.config).warm_start
        server = (template_server(template) if warm else None) or shared_server("kernel")
        if server.template is None:
            plan["shared"] = template  # no warm namespace: the job runs the shared cells first
        blank = unanswered(nb, released)
        job_dir = server.new_job_dir()
        try:
            frames, ended = self._run(server, job_dir, plan, limits, resources)
        finally:
            shutil.rmtree(job_dir, ignore_errors=True)
        for index, checks in targets.items():
            self._write(nb.cells[index], index, checks, frames, ended, pool, blank, resources)
        return nb, resources

    def secret(self) -> bytes:
        """The course secret, made first when it is the course's own file and missing (SecretError
        says what to fix otherwise)."""
        if self.secret_file:
            return course_secret(self.secret_file, create=False)
        return course_secret(default_path(CourseDirectory(config=self.config).root))

    def _hide_seeds(self, nb, targets: dict[int, list[dict]], resources) -> None:
        """Each hidden check's written seed replaced, in place (the plan holds the same dicts), by its
        seed derived from the course secret (see autograder/grading/secret.py)."""
        if not any(check["hidden"] for checks in targets.values() for check in checks):
            return  # no secret needed: none is made
        secret = self.secret()
        info = resources.get("nbgrader", {})
        assignment, notebook = str(info.get("assignment", "")), str(info.get("notebook", ""))
        # Both editions of a lesson run the same hidden scenarios: the seed is the English lesson's.
        assignment, notebook = english_lesson(assignment), english_lesson(notebook)
        for index, checks in targets.items():
            for k, check in enumerate(checks):
                if check["hidden"]:
                    grade_id = _meta(nb.cells[index]).get("grade_id", "")
                    check["seed"] = derive_seed(secret, assignment, notebook, grade_id, k, check["seed"])

    def _plan(self, nb) -> tuple[dict, dict[int, list[dict]]]:
        hidden = ClearHiddenTests(config=self.config)
        items, targets = [], {}
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            meta = _meta(cell)
            if meta.get("solution") or not meta:
                # answers, and the cells the student added (handed-out code cells without grading
                # metadata are the lesson's own: they are in the shared cells, or they are demos)
                if meta.get("solution") or cell.metadata.get("autograder", {}).get("added"):
                    label = _seen_as(cell, index)
                    items.append({"kind": "code", "index": index, "source": cell.source, "label": label})
                continue
            if not meta.get("grade"):
                continue
            checks = checks_in(cell.source, hidden.begin_test_delimeter, hidden.end_test_delimeter)
            if checks:
                # Scored whether or not the kernel reached this cell: the job runs the answer cells
                # itself, so a notebook stopped early by a limit loses what it shows, not its score.
                items.append({"kind": "checks", "index": index, "checks": checks})
                targets[index] = checks
        # Cells after the last test cell to score cannot change any score: running them would only
        # spend the job's time (a cell that hangs or forks forever would cost the whole budget).
        while items and items[-1]["kind"] != "checks":
            items.pop()
        return {"items": items, "shared": []}, targets

    def _run(self, server, job_dir: str, plan: dict, limits, resources) -> tuple[list, dict | None]:
        """The job's frames, and why it stopped early (None when it ended by itself)."""
        job = server.spawn_score(job_dir, plan, limits)
        ended = None
        try:
            try:
                job.wait(timeout=limits.notebook_seconds + SCORE_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                job.kill("timeout")
                job.wait()
                ended = {
                    "failure": "timeout",
                    "detail": f"scoring the checks took longer than {limits.notebook_seconds} s",
                }
            if ended is None and job.returncode != 0:
                ended = {"failure": "died", "detail": job.describe_end()}
            if ended is not None:
                add_note(resources, f"Scoring the checks stopped: {ended['detail']}.")
            return job.frames(), ended
        finally:
            job.close_files()

    def _write(self, cell, index: int, checks: list[dict], frames, ended, pool, blank: set[str], resources) -> None:
        from ..host.client import in_order
        from ..i18n import language
        from ..verdict import Verdict

        lang = language()  # the learner's (preprocess speaks it); the metadata's message stays English

        stopped = _did_not_run(cell)
        results, lines = [], [_("Checked by the grader on your answer cells, outside your notebook:")]
        if stopped:
            lines.append(_("(The notebook was stopped before this cell ran; its checks were scored all the same.)"))
        failures, passes = [], []
        for k, check in enumerate(checks):
            if check["exercise"] in blank:
                shown_message = _(UNANSWERED).format(name=check["exercise"])
                verdict = Verdict(check["exercise"], "unanswered", UNANSWERED.format(name=check["exercise"]))
            else:
                records = in_order(frames, f"{index}-{k}-")
                verdict, messages = pool.judge_in(
                    (ENGLISH, lang), check["exercise"], check["start"], check["seed"], records, ended
                )
                shown_message = messages[lang]
                if not records and ended is not None and not verdict.review:
                    verdict = replace(verdict, review=f"scoring stopped before this check ran: {ended['detail']}")
            # A hidden check's seed is the course's secret-derived one: not kept, since the notebook
            # reaches the student as feedback (nothing reads it back: the report reads the verdicts).
            kept = {key: value for key, value in check.items() if not (key == "seed" and check.get("hidden"))}
            results.append({**kept, "code": verdict.code, "passed": verdict.passed, "message": verdict.message,
                            "review": verdict.review, "shown": shown_message, "language": lang})  # fmt: skip
            words = in_words(verdict.exercise, verdict.code)  # the [code] explained where it is shown
            shown_verdict = shown_lines(verdict.exercise, verdict.code, verdict.passed, shown_message, meaning=words)
            line = "\n".join(shown_verdict)
            # Each distinct verdict once (two seeds usually agree), what to fix before what passed.
            shown = passes if verdict.passed else failures
            if line not in shown:
                shown.append(line)
            if verdict.review:
                add_review(resources, f"{check['exercise']} (cell {_label(cell)}): {verdict.review}")
        lines += failures + passes
        cell.outputs = [new_output("stream", name="stdout", text="\n".join(lines) + "\n")]
        failed = [r for r in results if not r["passed"]]
        if failed:
            first = failed[0]
            # The error fails the cell for nbgrader; its name and value are for the reports, and what
            # it shows is one line that does not repeat the ❌ line above.
            error = error_output("NotYet", f"{first['exercise']}: {first['code']}: {first['message']}")
            error["traceback"] = [_(FAILED_LINE)]
            cell.outputs.append(error)
        cell.metadata.setdefault("autograder", {})["checks"] = results

    def _quizzes(self, nb) -> None:
        """Each quick-check answer, and whether it is right, into its check cell's metadata."""
        from gradebox.quick_checks import _answer_hash, load_quiz

        answers = {_meta(c).get("grade_id"): c.source for c in nb.cells if _meta(c).get("solution")}
        for cell in nb.cells:
            found = quiz_question(cell.source) if cell.cell_type == "code" else None
            if not found:
                continue
            assignment, question = found
            try:
                key = load_quiz(assignment)[question]
            except (OSError, KeyError, ValueError):
                continue
            answer = quiz_answer(answers.get(f"quiz_{question}", ""), question)
            right = (
                isinstance(answer, str)
                and _answer_hash(assignment, question, answer.strip().lower()) == key["answer_sha256"]
            )
            shown = answer.strip().lower() if isinstance(answer, str) else None
            cell.metadata.setdefault("autograder", {})["quiz"] = {"question": question, "answer": shown, "right": right}
