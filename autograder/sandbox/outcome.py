"""What came back from a job that ran an exercise: a record, or why there is none."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Outcome:
    record: bytes | None
    failure: str | None = None  # "timeout" or "died"
    detail: str = ""
    seconds: float = 0.0
