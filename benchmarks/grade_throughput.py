"""Grading a class: `python -m autograder grade` against stock `nbgrader autograde`, same run.

Creates N realistic lesson 3 submissions (correct work, the classic zero_grad mistakes, wrong
quiz answers, blank notebooks), grades the same class three times in three copies of a course,
checks that every student gets the same score each time, and prints the times:

- stock:     `nbgrader autograde` with nbgrader's own preprocessors (no sandbox; the baseline)
- sandboxed: `nbgrader autograde` with this course's nbgrader_config.py (sandboxed kernels)
- grade:     `python -m autograder grade --jobs J` (sandboxed, parallel, warm kernels)
- before:    (with ``--before REF``) the same `grade` command with the grader of a git revision,
             extracted into a temporary folder, on the same class made from that revision's
             notebooks (its lessons' helpers may differ), in the same run

    python benchmarks/grade_throughput.py [--n 20] [--jobs 2] [--skip-sandboxed] [--before REF] [--no-record]

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
sys.path.insert(0, ROOT)
from autograder.host.limit_settings import DEFAULT_JOBS, DEFAULT_JOBS_RULE  # noqa: E402 - the course's root, just above

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


def packages_at(ref: str) -> list[str]:
    """The course's packages at a git revision: the job side (gradebox) has its own since issue 38,
    and a revision from before it has none to archive."""
    names = ["autograder", "gradebox", "gradexercises", "gradlessons"]
    return [n for n in names if subprocess.run(["git", "cat-file", "-e", f"{ref}:{n}"], cwd=ROOT).returncode == 0]


def extract(ref: str, folder: str) -> str:
    """The grader and the course config as they were at a git revision, in ``folder``."""
    paths = [*packages_at(ref), "notebooks", "nbgrader_config.py"]
    archive = subprocess.run(["git", "archive", ref, *paths], cwd=ROOT, capture_output=True)
    if archive.returncode != 0:
        raise SystemExit(f"git archive {ref}: {archive.stderr.decode().strip()}")
    os.makedirs(folder, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
    return folder


def make_class(course: str, n: int, config: str = "", notebooks: str | None = None) -> None:
    """N submissions in a new course; ``config`` is added to its nbgrader_config.py first;
    ``notebooks``: the source notebooks to use instead of this clone's."""
    sys.path.insert(0, ROOT)
    from tests.course_copy import answered, make_course, nbgrader, read, solutions, write

    make_course(course)
    if notebooks:
        shutil.rmtree(os.path.join(course, "notebooks"))
        shutil.copytree(notebooks, os.path.join(course, "notebooks"))
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


def timed(command: list[str], cwd: str, env: dict | None = None) -> float:
    began = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return seconds


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="submissions (default: %(default)s)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=DEFAULT_JOBS,
        help=f"grade --jobs (default: grade's, {DEFAULT_JOBS_RULE}: %(default)s)",
    )
    parser.add_argument("--skip-sandboxed", action="store_true", help="do not time sandboxed nbgrader autograde")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--before", metavar="REF", help="also time `grade` with the grader of this git revision")
    parser.add_argument("--no-record", action="store_true", help="do not append the figures to RESULTS.md")
    args = parser.parse_args(argv)
    args.jobs = args.jobs or DEFAULT_JOBS
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
        envs = {}
        if args.before:
            old = extract(args.before, os.path.join(work, "grader-before"))
            runs["before"] = runs["grade"]
            # The old grader first on the path (ahead of this clone's install), and its own config.
            envs["before"] = {**os.environ, "PYTHONPATH": old}
        seconds, results = {}, {}
        for name, command in runs.items():
            course = os.path.join(work, name)
            if name == "before":  # the old grader grades the old lessons (same answers, same points)
                make_class(course, args.n, notebooks=os.path.join(old, "notebooks"))
            else:
                shutil.copytree(base, course)
            if name == "stock":
                with open(os.path.join(course, "nbgrader_config.py"), "a") as f:
                    f.write(STOCK)
            if name == "before":
                shutil.copy(os.path.join(old, "nbgrader_config.py"), course)
            seconds[name] = timed(command, course, envs.get(name))
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
            raise SystemExit("scores differ between runs (nothing recorded): " + json.dumps(results))
        if not args.no_record:
            from benchmarks.results import record

            ratios = ", ".join(f"{k} {v:.2f}x" for k, v in figures["speedup_vs_stock"].items())
            times = ", ".join(f"{k} {v:.1f} s" for k, v in figures["seconds"].items())
            before = f" (before = {args.before})" if args.before else ""
            record("grade_throughput", f"{args.n} submissions, --jobs {args.jobs}: {times}; vs stock: {ratios}{before}")
        return figures
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
