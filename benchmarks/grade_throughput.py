"""Grading a class: `python -m autograder grade` against stock `nbgrader autograde`, same run.

Creates N realistic lesson 3 submissions (correct work, the classic zero_grad mistakes, wrong
quiz answers, blank notebooks), grades the same class three times in three copies of a course,
checks that every student gets the same score each time, and prints the times:

- stock:     `nbgrader autograde` with nbgrader's own preprocessors (no sandbox; the baseline)
- sandboxed: `nbgrader autograde` with this course's nbgrader_config.py (sandboxed kernels)
- grade:     `python -m autograder grade --jobs J` (sandboxed, parallel, warm kernels)

    python benchmarks/grade_throughput.py [--n 20] [--jobs 2] [--skip-sandboxed]
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

# nbgrader's defaults, restored on top of the course config for the baseline.
STOCK = """
from nbconvert.exporters import NotebookExporter
c.Autograde.exporter_class = NotebookExporter
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput", "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec", "nbgrader.preprocessors.OverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata"]
c.Autograde.autograde_preprocessors = [
    "nbgrader.preprocessors.Execute", "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor", "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades", "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata"]
c.Exporter.optimistic_validation = False
"""


def variants(good: dict[str, str]) -> list[dict[str, str]]:
    """A class mix: mostly correct work, the usual mistakes, some blank notebooks."""
    from tests.course_copy import CLEARS_AFTER_STEP, LOSS_NOT_SCALED, NEVER_CLEARS, NO_CLEAR

    return [
        good,
        {**good, "train_step": NEVER_CLEARS},
        good,
        {**good, "train_step": CLEARS_AFTER_STEP, "quiz_q1": 'q1 = "zzz"'},
        {**good, "train_accumulated": LOSS_NOT_SCALED},
        good,
        {**good, "manual_sgd_step": NO_CLEAR, "quiz_q3": 'q3 = "a"', "quiz_q4": 'q4 = "d"'},
        {},
    ]


def grade_default_jobs() -> int:
    """``grade``'s own --jobs default (defined once, in the grader)."""
    sys.path.insert(0, ROOT)
    from autograder.grading.grade import default_jobs

    return default_jobs()


def make_class(course: str, n: int, config: str = "") -> None:
    """N submissions in a new course; ``config`` is added to its nbgrader_config.py first."""
    sys.path.insert(0, ROOT)
    from tests.course_copy import answered, make_course, nbgrader, read, solutions, write

    make_course(course)
    if config:
        with open(os.path.join(course, "nbgrader_config.py"), "a") as f:
            f.write(config)
    nbgrader(course, "generate_assignment", LESSON)
    source = read(os.path.join(course, "notebooks", LESSON, f"{LESSON}.ipynb"))
    release = read(os.path.join(course, "release", LESSON, f"{LESSON}.ipynb"))
    mix = variants(solutions(source))
    for i in range(n):
        path = os.path.join(course, "submitted", f"student{i:03d}", LESSON, f"{LESSON}.ipynb")
        write(path, answered(release, mix[i % len(mix)]))


def scores(course: str) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{os.path.join(course, 'gradebook.db')}") as gb:
        return {s.student.id: s.score for s in gb.assignment_submissions(LESSON)}


def timed(command: list[str], cwd: str) -> float:
    began = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return seconds


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="submissions (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=0, help="grade --jobs (default: grade's own, CPUs + 1)")
    parser.add_argument("--skip-sandboxed", action="store_true", help="do not time sandboxed nbgrader autograde")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    args.jobs = args.jobs or grade_default_jobs()
    bin_dir = os.path.dirname(sys.executable)
    os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    work = tempfile.mkdtemp(prefix="grade-bench-")
    try:
        base = os.path.join(work, "base")
        make_class(base, args.n)
        runs = {"stock": ["nbgrader", "autograde", LESSON]}
        if not args.skip_sandboxed:
            runs["sandboxed"] = ["nbgrader", "autograde", LESSON]
        runs["grade"] = [sys.executable, "-m", "autograder", "grade", LESSON, "--jobs", str(args.jobs)]
        seconds, results = {}, {}
        for name, command in runs.items():
            course = os.path.join(work, name)
            shutil.copytree(base, course)
            if name == "stock":
                with open(os.path.join(course, "nbgrader_config.py"), "a") as f:
                    f.write(STOCK)
            seconds[name] = timed(command, course)
            results[name] = scores(course)
        same = all(results[name] == results["stock"] for name in results)
        figures = {
            "n": args.n,
            "jobs": args.jobs,
            "seconds": {k: round(v, 1) for k, v in seconds.items()},
            "per_submission": {k: round(v / args.n, 2) for k, v in seconds.items()},
            "speedup_vs_stock": {k: round(seconds["stock"] / v, 2) for k, v in seconds.items() if k != "stock"},
            "same_scores": same,
            "mean_score": round(sum(results["stock"].values()) / max(1, len(results["stock"])), 2),
        }
        if args.json:
            print(json.dumps(figures))
        else:
            print(f"{args.n} lesson 3 submissions, {os.cpu_count()} CPUs, grade --jobs {args.jobs}")
            for name in runs:
                ratio = "" if name == "stock" else f"   {figures['speedup_vs_stock'][name]:.2f}x stock"
                print(f"  {name:<10} {seconds[name]:7.1f} s   {seconds[name] / args.n:5.2f} s per submission{ratio}")
            print(f"  same scores in every run: {'yes' if same else 'NO'} (mean {figures['mean_score']})")
        if not same:
            raise SystemExit("scores differ between runs: " + json.dumps(results))
        return figures
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
