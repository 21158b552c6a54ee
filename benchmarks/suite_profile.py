"""Where the test suite's time goes: `course.py test` run with a sampler beside it.

Runs the README's test command (any arguments are passed on to pytest) while a thread reads, once a
second, the CPU time of every process that started after it (from /proc, through psutil). Afterwards
it prints CPU-seconds by kind of process (the sandbox's jobs, Chromium, kernels, nbgrader...) and
worker-seconds by test folder (from pytest's JUnit XML), so that one can tell a suite that waits
(idle CPUs: balance the workers) from one that computes (busy CPUs: do less, or get more CPUs).

    .venv/bin/python benchmarks/suite_profile.py [--interval 1] [--json] [--no-record] [--files 15]
                                                 [--keep-junit PATH] [pytest arguments]

Processes that live less than one interval are missed, so the sampled total is a lower bound: the
share of the machine it covers is printed beside it. Command lines are kept in memory only (they can
hold secrets) and only the kinds are printed. Each run appends its figures to benchmarks/RESULTS.md
(not with ``--no-record``); it exits with the suite's own exit code.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from collections import Counter

import psutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from benchmarks.results import record  # noqa: E402 - the course's root, just above

# Kinds of process, first match wins: the command line is searched for the pattern.
KINDS = [
    # gradebox.serve since the job side became a package of its own (autograder.sandbox.server before)
    ("sandbox jobs (forked from a warm server)", r"gradebox\.serve|autograder\.sandbox\.server"),
    ("judging workers", r"autograder\.judge\.worker"),
    ("Chromium", r"chrom(e|ium)"),
    ("kernels outside the sandbox", r"ipykernel"),
    ("grade and report commands", r"-m autograder\b"),
    ("nbgrader commands", r"\bnbgrader\b"),
    ("pip", r"\bpip\b"),
    ("JupyterHub", r"jupyterhub"),
    ("JupyterLab servers", r"jupyter-lab|jupyter_server|jupyterlab"),
    ("node (the hub's proxy, npm)", r"\bnode\b|\bnpm\b|configurable-http-proxy"),
    ("PostgreSQL", r"postgres"),
    ("containers (podman, runc)", r"podman|conmon|runc|buildah"),
    ("pytest workers", r"exec\(eval\(sys\.stdin\.readline"),
    ("pytest", r"-m pytest\b|/pytest(\s|$)|course\.py test"),  # not what runs in pytest's temporary folders
]


def kind_of(cmdline: str) -> str:
    return next((name for name, pattern in KINDS if re.search(pattern, cmdline)), "other")


class Sampler(threading.Thread):
    """CPU time (user + system) of every process started after ``since``, by (pid, start time)."""

    def __init__(self, since: float, interval: float) -> None:
        super().__init__(daemon=True)
        self.since, self.interval, self.mine = since, interval, os.getpid()
        self.seen: dict[tuple[int, float], list] = {}  # (pid, started): [kind, cpu seconds]
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            self.sample()
            self.stopping.wait(self.interval)
        self.sample()

    def sample(self) -> None:
        for process in psutil.process_iter(["pid", "create_time"]):
            try:
                started = process.info["create_time"]
                if started < self.since or process.info["pid"] == self.mine:
                    continue
                key = (process.info["pid"], started)
                if key not in self.seen:
                    self.seen[key] = [kind_of(" ".join(process.cmdline())), 0.0]
                times = process.cpu_times()
                self.seen[key][1] = times.user + times.system
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue

    def by_kind(self) -> Counter:
        totals: Counter = Counter()
        for kind, seconds in self.seen.values():
            totals[kind] += seconds
        return totals


def by_folder(junit_xml: str) -> tuple[Counter, int]:
    """Worker-seconds by the folder of each test file under tests/, and the number of tests."""
    totals: Counter = Counter()
    count = 0
    for case in ET.parse(junit_xml).iter("testcase"):
        parts = (case.get("classname") or "").split(".")
        folder = "/".join(parts[1:-1]) or parts[0] or "?"
        totals[folder] += float(case.get("time") or 0)
        count += 1
    return totals, count


def by_file(junit_xml: str) -> Counter:
    """Worker-seconds by test file (setup, call and teardown: a module's fixtures count in its first
    test), so that one can tell which file to make cheaper."""
    totals: Counter = Counter()
    for case in ET.parse(junit_xml).iter("testcase"):
        parts = (case.get("classname") or "?").split(".")  # tests.unit.test_x, or tests.unit.test_x.TestClass
        modules = [i for i, part in enumerate(parts) if part.startswith("test_")]
        totals["/".join(parts[: modules[-1] + 1] if modules else parts) + ".py"] += float(case.get("time") or 0)
    return totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False
    )
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between samples (default 1)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON on the last line")
    parser.add_argument("--no-record", action="store_true", help="do not append the figures to RESULTS.md")
    parser.add_argument("--files", type=int, default=15, metavar="N", help="print the N costliest test files (15)")
    parser.add_argument("--keep-junit", metavar="PATH", help="keep pytest's JUnit XML there (it is deleted otherwise)")
    args, pytest_args = parser.parse_known_args(argv)
    if args.interval <= 0:
        parser.error("--interval must be more than 0 seconds")
    if args.files < 0:
        parser.error("--files must be 0 or more")

    with tempfile.TemporaryDirectory(prefix="suite-profile-") as scratch:
        junit_xml = os.path.join(scratch, "junit.xml")
        command = [sys.executable, os.path.join(ROOT, "course.py"), "test", f"--junitxml={junit_xml}", *pytest_args]
        started = time.time()
        sampler = Sampler(since=started - 1.0, interval=args.interval)
        sampler.start()
        code = subprocess.call(command, cwd=ROOT)
        wall = time.time() - started
        sampler.stopping.set()
        sampler.join()
        if not os.path.exists(junit_xml):
            print(f"suite_profile: pytest wrote no results (exit code {code})", file=sys.stderr)
            return code or 1
        folders, tests = by_folder(junit_xml)
        files = by_file(junit_xml)
        if args.keep_junit:
            shutil.copyfile(junit_xml, args.keep_junit)

    kinds = sampler.by_kind()
    sampled, capacity = sum(kinds.values()), wall * (os.cpu_count() or 1)
    figures = {
        "exit_code": code,
        "tests": tests,
        "wall_seconds": round(wall, 1),
        "worker_seconds": round(sum(folders.values()), 1),
        "cpu_seconds_sampled": round(sampled, 1),
        "share_of_machine": round(sampled / capacity, 3) if capacity else 0.0,
        "cpu_seconds_by_kind": {k: round(v, 1) for k, v in kinds.most_common()},
        "worker_seconds_by_folder": {k: round(v, 1) for k, v in folders.most_common()},
        "worker_seconds_by_file": {k: round(v, 1) for k, v in files.most_common(args.files)},
    }
    print(f"\n{tests} tests, exit code {code}, {wall:.0f} s wall (setup included), "
          f"{figures['worker_seconds']:.0f} worker-seconds of tests")  # fmt: skip
    print(f"CPU sampled: {sampled:.0f} s, {figures['share_of_machine']:.0%} of {os.cpu_count()} CPUs x the wall time")
    for kind, seconds in kinds.most_common():
        print(f"  {seconds:8.1f} s  {kind}")
    print("Worker-seconds by test folder:")
    for folder, seconds in folders.most_common():
        print(f"  {seconds:8.1f} s  tests/{folder}")
    if args.files:
        print(f"The {args.files} costliest test files (worker-seconds, fixtures included):")
        for name, seconds in files.most_common(args.files):
            print(f"  {seconds:8.1f} s  {name}")
    if not args.no_record:
        top = ", ".join(f"{k} {v:.0f} s" for k, v in kinds.most_common(6))
        where = ", ".join(f"tests/{k} {v:.0f} s" for k, v in folders.most_common())
        where += "; costliest files: " + ", ".join(f"{k} {v:.0f} s" for k, v in files.most_common(5))
        record("suite_profile", f"{tests} tests, exit {code}, {wall:.0f} s wall, {figures['worker_seconds']:.0f} "
               f"worker-s; CPU sampled {sampled:.0f} s ({figures['share_of_machine']:.0%} of the machine): {top}; "
               f"by folder: {where}")  # fmt: skip
    if args.json:
        print(json.dumps(figures))
    return code


if __name__ == "__main__":
    sys.exit(main())
