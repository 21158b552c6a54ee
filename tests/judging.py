"""Judging a test's own functions in this process, as the sandboxed paths judge students' files:
each scenario run by the job's code (``gradebox.jobs.run``), its record written and read back in
the record format, and the verdict from the same judge (``autograder.judge``)."""

from __future__ import annotations

from autograder.judge import judge_scenarios
from gradebox import exercises
from gradebox.jobs.run import encode_record, run_all


def records_of(exercise: str, fn, scenarios: list, load=None) -> list[bytes]:
    """``load``, when given, makes the function afresh for every scenario (as a job loads a file)."""
    return [encode_record(record) for record in run_all(exercise, load or (lambda: fn), scenarios)]


def verdict_of(exercise: str, fn=None, start: str = "all", seed: int = 0, keep=lambda scenario: True, load=None):
    scenarios = [s for s in exercises.get(exercise).suite(start, seed) if keep(s)]
    return judge_scenarios(exercise, scenarios, records_of(exercise, fn, scenarios, load))


def observations_of(exercise: str, fn, scenarios: list) -> list[dict]:
    """What the judge reads: each scenario's observation, after the trip through the record format."""
    from autograder.judge import read_record

    return [read_record(data)["observation"] for data in records_of(exercise, fn, scenarios)]
