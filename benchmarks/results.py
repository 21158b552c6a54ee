"""Where every benchmark run lands: one row in benchmarks/RESULTS.md, written by the benchmark itself
(date, machine, commit, figures), never by hand.  Figures are compared within one row: each run
measures its baseline beside what it measures, since machines differ by more than the code does."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benchmarks", "RESULTS.md")
HEADER = """# Benchmark results

One row per run, appended by the benchmark scripts in this folder (`--no-record` leaves the file
alone).  Compare figures within a row: each run measures its own baseline on the same machine.
Rows whose commit says `(README)` were measured before the scripts wrote here (some by hand, as the
benchmark column says) and were moved once from the README; the commit is the one that recorded them.

| date | benchmark | machine | commit | figures |
| --- | --- | --- | --- | --- |
"""


def machine() -> str:
    """The CPU model and count, and the Python: enough to tell two machines apart."""
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def commit() -> str:
    done = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def record(benchmark: str, figures: str) -> None:
    """Append one row (creating the file with its header if needed)."""
    if not os.path.exists(RESULTS):
        with open(RESULTS, "w", encoding="utf-8") as f:
            f.write(HEADER)
    day = datetime.date.today().isoformat()
    with open(RESULTS, "a", encoding="utf-8") as f:
        f.write(f"| {day} | {benchmark} | {machine()} | {commit()} | {figures.replace('|', '/')} |\n")
