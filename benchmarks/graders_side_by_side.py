"""Graders side by side on one PostgreSQL gradebook: one `grade` process against two shards at once.

Starts a throwaway PostgreSQL server (Debian's `postgresql` package, as tests/postgres.py does),
creates N realistic lesson 3 submissions (the mix of grade_throughput.py), and grades the same class
in fresh copies of the course, each with its own database:

- one:      `python -m autograder grade --jobs J`                       (the baseline)
- two:      `grade --shard 1/2 --jobs J/2` and `--shard 2/2 --jobs J/2`, started together
- two-full: `grade --shard 1/2 --jobs J` and `--shard 2/2 --jobs J`, started together
            (what two graders on two machines would run, here sharing this machine's CPUs)

It checks that every run gives every student the same score, and prints wall-clock times and
throughput (submissions per minute) with ratios against the single grader.  On one machine two
graders cannot beat one grader using every CPU; the figures show what sharding costs (a second
warm server, two gradebook connections) so that the gain on several machines can be estimated.

    python benchmarks/graders_side_by_side.py [--n 40] [--jobs 2] [--runs one,two,two-full] [--no-record]

Each run appends its figures to benchmarks/RESULTS.md (not with ``--no-record``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSON = "lesson3_zeroing_grad"
sys.path.insert(0, ROOT)
from autograder.host.limit_settings import DEFAULT_JOBS, DEFAULT_JOBS_RULE  # noqa: E402 - the course's root, just above

RUNS = ("one", "two", "two-full")


def make_class(course: str, db_url: str, n: int) -> None:
    from benchmarks.grade_throughput import make_class as make_lesson3_class

    make_lesson3_class(course, n, config=f"\nc.CourseDirectory.db_url = {db_url!r}\n")


def scores(db_url: str) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gb:
        return {s.student.id: s.score for s in gb.assignment_submissions(LESSON)}


def run_together(commands: list[list[str]], cwd: str) -> float:
    began = time.perf_counter()
    processes = [subprocess.Popen(c, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for c in commands]  # fmt: skip
    for command, process in zip(commands, processes):
        out, err = process.communicate()
        if process.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed:\n{out[-2000:]}\n{err[-2000:]}")
    return time.perf_counter() - began


def main(argv: list[str] | None = None) -> dict:
    from tests.postgres import Postgres

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40, help="submissions (default: %(default)s)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=DEFAULT_JOBS,
        help=f"one grader's --jobs (default: grade's, {DEFAULT_JOBS_RULE}: %(default)s)",
    )
    parser.add_argument(
        "--runs",
        default=",".join(RUNS),
        help="the runs to time, separated by commas; 'one' is the baseline and always runs (default: %(default)s)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--no-record", action="store_true", help="do not append the figures to RESULTS.md")
    args = parser.parse_args(argv)
    args.jobs = args.jobs or DEFAULT_JOBS
    chosen = {"one", *filter(None, (name.strip() for name in args.runs.split(",")))}
    if chosen - set(RUNS):
        parser.error(f"--runs: unknown {', '.join(sorted(chosen - set(RUNS)))}; the runs are {', '.join(RUNS)}")
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    grade = [sys.executable, "-m", "autograder", "grade", LESSON]
    half = str(max(1, args.jobs // 2))
    runs = {
        "one": [[*grade, "--jobs", str(args.jobs)]],
        "two": [[*grade, "--shard", "1/2", "--jobs", half], [*grade, "--shard", "2/2", "--jobs", half]],
        "two-full": [[*grade, "--shard", f"{k}/2", "--jobs", str(args.jobs)] for k in (1, 2)],
    }
    runs = {name: commands for name, commands in runs.items() if name in chosen}
    work = tempfile.mkdtemp(prefix="graders-bench-", dir="/var/tmp")
    os.chmod(work, 0o755)
    server = Postgres.start(os.path.join(work, "pg"))
    try:
        seconds, results = {}, {}
        for number, (name, commands) in enumerate(runs.items()):
            course = os.path.join(work, name)
            db_url = server.database(f"bench_{number}")
            make_class(course, db_url, args.n)
            seconds[name] = run_together(commands, course)
            results[name] = scores(db_url)
        same = all(results[name] == results["one"] for name in results) and len(results["one"]) == args.n
        figures = {
            "n": args.n,
            "jobs": args.jobs,
            "cpus": os.cpu_count(),
            "seconds": {k: round(v, 1) for k, v in seconds.items()},
            "per_minute": {k: round(60 * args.n / v, 1) for k, v in seconds.items()},
            "throughput_vs_one": {k: round(seconds["one"] / v, 2) for k, v in seconds.items()},
            "same_scores": same,
        }
        labels = {"one": f"one grader, --jobs {args.jobs}", "two": f"two shards, --jobs {half} each",
                  "two-full": f"two shards, --jobs {args.jobs} each"}  # fmt: skip
        if args.json:
            print(json.dumps(figures))
        else:
            print(f"{args.n} lesson 3 submissions, PostgreSQL gradebook, {os.cpu_count()} CPUs")
            for name in runs:
                print(f"  {labels[name]:<28} {seconds[name]:7.1f} s   {figures['per_minute'][name]:6.1f} per minute"
                      f"   {figures['throughput_vs_one'][name]:.2f}x one grader")  # fmt: skip
            print(f"  same scores in every run: {'yes' if same else 'NO'}")
        if not same:
            raise SystemExit("scores differ between runs (nothing recorded): " + json.dumps(results))
        if not args.no_record:
            from benchmarks.results import record

            times = "; ".join(
                f"{labels[name]} {seconds[name]:.1f} s ({figures['per_minute'][name]:.1f} per minute, "
                f"{figures['throughput_vs_one'][name]:.2f}x)"
                for name in runs
            )
            record("graders_side_by_side", f"{args.n} lesson-3 submissions, PostgreSQL gradebook: {times}")
        return figures
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
