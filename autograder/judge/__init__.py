"""The judge: what runs in the GRADER on the records a job sent back, and gives the verdict.

A job (``gradebox.jobs``) ran the student's code through an exercise's scenarios and sent one
record per scenario.  Those bytes are hostile: the judge reads them as data to validate, never as
a verdict.  For one check (an exercise, a start and a seed):

1. the scenarios are rebuilt here from the seed (``gradebox.exercises``), the same ones the job ran;
2. each record is decoded within bounds (``gradebox.record``) and checked against the shape the
   exercise's judge reads (``validate``, ``schema(scenario)``); inf or NaN where a value must be
   finite is the student's run going wrong, and is named as such;
3. a scenario that raised, timed out, died, or found torch changed ends the check with that
   verdict (after naming a mistake an earlier scenario showed);
4. a missing scenario fails the check: a pass needs every scenario's record;
5. the exercise's ``judge(scenarios, observations)`` recomputes every reference itself and
   compares: a pass needs the *effects* of every scenario (returned values, the final state of the
   tensors, model and optimizer the job was given) to be what it computes.  What the job saw along
   the way (hooks, the gradient ``step()`` read) may name a mistake or make a verdict worse; it
   never earns a pass.

Where the grader cannot decide from the student's code alone (a run that ended before all its
scenarios for reasons outside them, a record it cannot read), the verdict fails and carries a
``review`` reason, which grading reports as "needs review".

Every message is written in the learner's language when the judge runs (``autograder.i18n``: each
judge's ``MESSAGES`` entry is a function that looks its text up then, never at import).

Each exercise's judge is ``gradexercises/<exercise>/judge.py``: ``judge``, ``schema``, its messages
and references, and optionally ``explain_error(error, scenario) -> Verdict | None``; this package
holds what the judges share (``_lesson1`` ... ``_lesson4``, ``validate``, ``texts``) and the pool
of judging workers.  Nothing of it, and no judge, is on a job's file system (``host/bwrap.py``).
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import replace
from types import ModuleType

import gradexercises
from gradebox.limits import DEFAULTS, Limits

from ..i18n import _, pgettext
from ..verdict import Verdict, code_rank, listed, names_a_case, seen_with, together
from .validate import Fields, Flag, InvalidRecord, ListOf, NotFinite, Text, check


def get(name: str) -> ModuleType:
    try:
        return JUDGES[name]
    except KeyError:
        known = ", ".join(sorted(JUDGES))
        raise KeyError(f"unknown exercise {name!r}; the exercises are: {known}") from None


# What a job may say of one scenario (``gradebox.jobs.run``), or of a scenario's child that ended
# without a record (the score job writes that in its place).  The observation's own shape is the
# exercise's (``schema``); an error's observation is read only to name a mistake (``explain_error``).
ERROR = Fields(
    {"type": Text(100), "message": Text(2000), "where": Text(100), "observation": Flag()},
    optional=frozenset({"observation"}),
)
CHANGES = ListOf(Text(300), max_length=50)
FAILURE = Fields({"failure": Text(20), "detail": Text(2000)})
OUTPUT = "output"  # the student's prints, kept beside a record by the notebook's own self-check


def read_record(data: bytes) -> dict:
    """A scenario's record, decoded and checked at its top level; ``InvalidRecord`` otherwise."""
    from gradebox.record import UnreadableRecord, decode  # torch: see _Judges

    try:
        record = decode(data)
    except UnreadableRecord as error:
        raise InvalidRecord(str(error)) from None
    if type(record) is not dict:
        raise InvalidRecord(_("the record is not a dict"))
    if set(record) == {"failure", "detail"}:
        check(FAILURE, record)
        if record["failure"] not in ("timeout", "died"):
            raise InvalidRecord(_("a failure of an unknown kind"))
        return record
    record.pop(OUTPUT, None)
    if set(record) != {"observation", "error", "tampered"}:
        raise InvalidRecord(_("the record does not have the keys of a scenario's record"))
    check(CHANGES, record["tampered"], _("the changes"))
    error, observation = record["error"], record["observation"]
    if error is not None:
        inner = error.get("observation") if type(error) is dict else None
        check(ERROR, {**error, "observation": True} if type(error) is dict and "observation" in error else error,
              _("the error"))  # fmt: skip
        if inner is not None and type(inner) is not dict:
            raise InvalidRecord(_("the error's observation is not a dict"))
    if observation is not None and type(observation) is not dict:
        raise InvalidRecord(_("the observation is not a dict"))
    if error is None and observation is None and not record["tampered"]:
        raise InvalidRecord(_("a record with neither an observation nor an error"))
    return record


def judge_check(
    exercise: str, start: str, seed: int, records: list[bytes], ended: dict | None = None, limits: Limits = DEFAULTS
) -> Verdict:
    """The verdict for one check from its scenarios' records, in order.  ``ended`` says why the
    job stopped before writing the rest, as the grader saw it (``{"failure": "timeout"|"died",
    "detail": ...}``); None when it ended normally."""
    from gradebox import exercises  # torch: see _Judges

    scenarios = exercises.get(exercise).suite(start, int(seed))
    return judge_scenarios(exercise, scenarios, records, ended, limits)


def judge_scenarios(
    exercise: str, scenarios: list, records: list[bytes], ended: dict | None = None, limits: Limits = DEFAULTS
) -> Verdict:
    """``judge_check`` on the scenarios given (a check's, or some of them).

    A scenario that raised does not hide the others: they ran too (each in its own child), and the
    verdict names every mistake, the crash and what the other scenarios show, the most important
    first.  A run that stopped (a timeout, a dead process) is judged on what came back before."""
    judge = get(exercise)
    judged, observations, problems = [], [], []  # problems: (verdict, scenario, its index, exception type)
    for index, scenario in enumerate(scenarios):
        if index >= len(records):
            problems.append((_missing(exercise, scenarios, index, ended, limits), scenario, index, None))
            break
        try:
            record = read_record(records[index])
            if "failure" in record:
                problems.append((_failed(exercise, record, limits), scenario, index, None))
                break
            if record["tampered"]:
                return tampered_verdict(exercise, record["tampered"])
            if record["error"] is not None:
                error = record["error"]
                problems.append((error_verdict(exercise, error, scenario), scenario, index, error["type"]))
                continue
            check(judge.schema(scenario), record["observation"], _("the observation"))
        except NotFinite as error:
            problems.append((_not_finite(exercise, judge, scenario, error), scenario, index, None))
            continue
        except InvalidRecord as error:
            why = _("The run of your code sent back a record the grader cannot accept ({error}).").format(error=error)
            return Verdict(exercise, "error", why, review=f"unreadable record: {error}")
        judged.append((index, scenario))
        observations.append(record["observation"])
    cases = [scenario for _, scenario in judged]
    verdict = judge.judge(cases, observations) if observations else None

    def first_case() -> int:
        """The index of the first judged case that shows the judge's mistake."""
        for k in range(1, len(cases)):
            if not judge.judge(cases[:k], observations[:k]).passed:
                return judged[k - 1][0]
        return judged[-1][0]

    return _together(exercise, verdict, problems, first_case)


def _together(exercise: str, verdict: Verdict | None, problems: list[tuple], first_case=None) -> Verdict:
    """The judge's verdict on the scenarios that ran to the end, with the mistakes of those that did
    not (a crash, a timeout): each named once, each with the case it showed in.

    The exercise's table of codes orders its own codes (``verdict.code_rank``).  A crash it does not
    list (every table but lesson 3's leaves ``error`` out) is named where it happened: before the
    judged mistakes when its case came before the first case that showed them, after them otherwise.
    An exception the exercise explains in one case (on a leaf, ``crashes_on_leaf``) but not in another
    is a general crash: the plain error names it, not the explanation."""
    unexplained = {kind for problem, _, _, kind in problems if problem.code == "error" and kind}
    found = [] if verdict is None or verdict.passed else [(verdict, first_case() if problems else 0)]
    for problem, scenario, case, kind in problems:
        if problem.code != "error" and kind in unexplained:
            continue
        if all(problem.code != other.code for other, _ in found):
            found.append((_seen_with(problem, scenario), case))
    if not found:
        return verdict
    ranked = sorted(
        (item for item in found if listed(exercise, item[0].code)), key=lambda i: code_rank(exercise, i[0].code)
    )
    start = min((case for _, case in ranked), default=len(problems) + 1)
    crashes = sorted((item for item in found if not listed(exercise, item[0].code)), key=lambda i: i[1])
    ordered = (
        [v for v, case in crashes if case < start]
        + [v for v, _ in ranked]
        + [v for v, case in crashes if case >= start]
    )
    # i18n: starts the next problem of a verdict, one another case showed ("Also, in another case: the ...")
    return together(exercise, ordered, also=_("Also, in another case:"), keep_order=True)


def _seen_with(verdict: Verdict, scenario) -> Verdict:
    name = getattr(scenario, "name", None)
    if not isinstance(name, str) or name in verdict.message or names_a_case(verdict.message):
        return verdict
    return replace(verdict, message=seen_with(verdict.message, name))


def judge_safely(exercise: str, start: str, seed: int, records: list[bytes], ended: dict | None = None,
                 limits: Limits = DEFAULTS) -> Verdict:  # fmt: skip
    """``judge_check``, where a record that fits its schema but still breaks a judge (values that
    contradict each other) fails the check instead of the grader."""
    from gradebox import exercises

    get(exercise), exercises.get(exercise)  # an unknown exercise is the caller's mistake: KeyError
    try:
        return judge_check(exercise, start, seed, records, ended, limits)
    except Exception as error:  # noqa: BLE001 - the record is the attacker's; the class goes on
        why = f"{type(error).__name__}: {str(error)[:200]}"
        return Verdict(
            exercise,
            "error",
            _("The grader could not judge the record of your run: its parts do not fit together."),
            review=f"the judge failed on this record ({why})",
        )


def _missing(exercise, scenarios, index: int, ended, limits) -> Verdict:
    if ended:
        return _failed(exercise, ended, limits)
    why = _(
        "The run of your code ended after {done} of its {total} cases, without saying why: "
        "every case must be checked for a pass."
    ).format(done=index, total=len(scenarios))
    return Verdict(exercise, "error", why, review="a run ended early")


def _failed(exercise, failure: dict, limits: Limits) -> Verdict:
    detail = failure.get("detail", "")
    if failure["failure"] == "timeout":
        return Verdict(
            exercise,
            "timeout",
            _(
                "Your function did not finish within {seconds} s: look for an endless loop or a very long computation."
            ).format(seconds=f"{limits.check_seconds:g}"),
        )
    if "exit code" in detail:
        text = _(
            "The process running your code ended before finishing: {detail}. "
            "Never call os._exit() or exit() in the function."
        )
    else:
        text = _("The process running your code ended before finishing: {detail}.")
    return Verdict(exercise, "error", text.format(detail=detail))


def tampered_verdict(exercise: str, changes: list[str]) -> Verdict:
    from gradebox.tamper.watch import describe

    return Verdict(
        exercise,
        "tampered",
        _(
            "Your code changed {changes}, which the grader relies on; solve the exercise without "
            "modifying torch, the optimizer or the grader."
        ).format(changes=describe(changes)),
    )


def error_verdict(exercise: str, error: dict, scenario=None) -> Verdict:
    """The verdict for an exception, in the exercise's own words where it names one of its mistakes
    (``explain_error(error, scenario)``: the scenario it was raised in, when known)."""
    judge = get(exercise)
    kind, message, where = error["type"], error["message"], error.get("where", "")
    if hasattr(judge, "explain_error"):
        try:
            verdict = judge.explain_error(error, scenario)
        except (TypeError, KeyError, AttributeError, ValueError, IndexError):
            verdict = None  # the record so far is the job's to shape: only a well-formed one names a mistake
        if verdict is not None:
            return verdict
    fields = {"exercise": exercise, "message": message, "where": _place(where), "kind": kind, "start": message[:120]}
    # Each case a whole sentence twice, with the place it happened ({where}: "line 4 of In [7]") and without.
    if kind == "NotDefined":
        text = _("No function named {exercise} was found: {message}.")
    elif kind == "SystemExit":
        text = (
            _("Your code called sys.exit() ({message}) at {where}: return from the function instead.")
            if where
            else _("Your code called sys.exit() ({message}): return from the function instead.")
        )
    elif kind == "KeyboardInterrupt":
        text = _("Your code was interrupted at {where}.") if where else _("Your code was interrupted.")
    elif kind in ("MemoryError",) or "can't allocate memory" in message or "not enough memory" in message:
        text = (
            _("Your code ran out of memory at {where} ({kind}: {start}).")
            if where
            else _("Your code ran out of memory ({kind}: {start}).")
        )
    elif kind == "SyntaxError":
        text = (
            _("Your code has a syntax error at {where}: {message}.")
            if where
            else _("Your code has a syntax error: {message}.")
        )
    elif not message.strip():
        text = _("Your function raised {kind} at {where}.") if where else _("Your function raised {kind}.")
    else:
        text = (
            _("Your function raised {kind} at {where}: {message}")
            if where
            else _("Your function raised {kind}: {message}")
        )
    return Verdict(exercise, "error", text.format(**fields))


def _place(where: str) -> str:
    """Where an exception was raised, in words: the job writes "line 4" (``jobs.run.describe_exception``),
    the one form said again in today's language; anything else the record holds is shown as it is."""
    line = re.fullmatch(r"line (\d{1,9})", where)
    # i18n: where in the student's file an exception was raised
    return pgettext("where", "line {n}").format(n=line[1]) if line else where


def _not_finite(exercise, judge, scenario, error: NotFinite) -> Verdict:
    code = getattr(judge, "NOT_FINITE", "error")
    where = error.where.removeprefix(_("the observation") + ".")  # the path in code, as the record has it
    return Verdict(
        exercise,
        code,
        _(
            "Your code left inf or NaN where a number was expected ({where}, with {case}): "
            "every value it produces must be finite."
        ).format(where=where, case=scenario.name),
    )


class _Judges(Mapping):
    """Every exercise's judge by name (``gradexercises/<name>/judge.py``), imported on first use.

    A judge imports torch, and so do the scenarios and the records it reads: seconds and hundreds of
    MB.  The grader's own process (``grade``, ``nbgrader autograde``, ``diagnose``) imports this
    package for its pool, which only hands records to the judging workers, so it never pays for them;
    a worker loads every judge before it says it is ready (``load``), as the warm servers preload
    the jobs."""

    def __init__(self) -> None:
        self._judges: dict[str, ModuleType] | None = None
        self._lock = threading.Lock()

    def load(self) -> dict[str, ModuleType]:
        with self._lock:
            if self._judges is None:
                # A judge imports what it shares with the others from this package, which is whole by now.
                self._judges = {name: importlib.import_module(f"gradexercises.{name}.judge")
                                for name in gradexercises.EXERCISES}  # fmt: skip
            return self._judges

    def __getitem__(self, name: str) -> ModuleType:
        return self.load()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.load())

    def __len__(self) -> int:
        return len(self.load())


JUDGES = _Judges()

__all__ = [
    "judge_scenarios",
    "InvalidRecord",
    "JUDGES",
    "error_verdict",
    "get",
    "judge_check",
    "judge_safely",
    "read_record",
    "tampered_verdict",
]
