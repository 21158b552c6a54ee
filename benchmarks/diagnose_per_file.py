"""How long `python -m autograder diagnose` takes per file, warm, against what a cold start costs.

For N student files (a correct train_step and the corpus's train_step mistakes, repeated), it
prints, all measured in this run:

* the baseline: a bare `python -c "import torch"`;
* cold: one `diagnose` command per file (each pays Python, torch and a sandbox start), on a
  sample of the files;
* warm: one `diagnose` command for all N files, `--jobs 1` and `--jobs 2` (every file a job forked
  from one warm server), with the seconds until the first verdict was printed.

    python benchmarks/diagnose_per_file.py [N] [--before REF] [--exercise NAME]

N defaults to 100; ``--exercise`` (default train_step) takes another exercise's files from the corpus
(its ``ok_*`` files and its mistakes), so that each lesson's recorder can be timed.  The target is
<= 0.3 s a file with --jobs 2, first verdict within 3 s.
``--before REF`` also times the code of a git revision, extracted into a temporary folder, on the
same files, in the same run (its per-file figure against the same torch import).  Each run appends
its figures to benchmarks/RESULTS.md (not with ``--no-record``).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from tests.course_copy import CORRECT_TRAIN_STEP  # noqa: E402 - the course's root, put on the path just above

COLD_SAMPLE = 5  # files timed one command each: enough for a per-file figure


def timed(command: list[str], cwd: str) -> tuple[float, float]:
    """(seconds in all, seconds until the first line of output)."""
    began = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    first = None
    for _ in process.stdout:
        if first is None:
            first = time.perf_counter() - began
    if process.wait() != 0:
        raise SystemExit(f"failed: {' '.join(command[:6])} ...")
    return time.perf_counter() - began, first if first is not None else float("nan")


def student_files(work: str, n: int, exercise: str = "train_step") -> list[str]:
    corpus = sorted(
        p
        for p in glob.glob(os.path.join(ROOT, "tests", "fixtures", "corpus", exercise, "*.py"))
        if not os.path.basename(p).startswith(("hang_", "error_"))
    )
    if not corpus:
        raise SystemExit(f"no corpus files for {exercise!r} in tests/fixtures/corpus/")
    correct = [CORRECT_TRAIN_STEP] if exercise == "train_step" else []
    sources = correct + [open(p, encoding="utf-8").read() for p in corpus]
    files = []
    for i in range(n):
        path = os.path.join(work, f"student{i:03d}.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(sources[i % len(sources)])
        files.append(path)
    return files


def packages_at(ref: str) -> list[str]:
    """The course's packages at a git revision: the job side (gradebox) has its own since issue 38,
    and a revision from before it has none to archive."""
    names = ["autograder", "gradebox", "gradexercises", "gradlessons"]
    return [n for n in names if subprocess.run(["git", "cat-file", "-e", f"{ref}:{n}"], cwd=ROOT).returncode == 0]


def extract(ref: str, folder: str) -> str:
    """The grader as it was at a git revision, in ``folder``."""
    archive = subprocess.run(["git", "archive", ref, *packages_at(ref)], cwd=ROOT, capture_output=True)
    if archive.returncode != 0:
        raise SystemExit(f"git archive {ref}: {archive.stderr.decode().strip()}")
    os.makedirs(folder, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
    return folder


def main() -> None:
    args = sys.argv[1:]
    before = None
    if "--before" in args:
        before = args[args.index("--before") + 1]
        del args[args.index("--before") : args.index("--before") + 2]
    exercise = "train_step"
    if "--exercise" in args:
        exercise = args[args.index("--exercise") + 1]
        del args[args.index("--exercise") : args.index("--exercise") + 2]
    keep = "--no-record" not in args
    args = [a for a in args if a != "--no-record"]
    n = int(args[0]) if args else 100
    row = []
    work = tempfile.mkdtemp()
    try:
        files = student_files(work, n, exercise)
        diagnose = [sys.executable, "-m", "autograder", "diagnose", exercise]
        baseline = min(timed([sys.executable, "-c", "import torch"], work)[0] for _ in range(3))
        print(f"baseline: python -c 'import torch'       {baseline:6.2f} s")
        row.append(f"import torch {baseline:.2f} s")
        if before:
            old = extract(before, os.path.join(work, "before"))
            # Run from the old tree, so that `python -m autograder` imports the old code first.
            seconds, first = timed([*diagnose, "--jobs", "2", *files], old)
            per = seconds / n
            print(f"before ({before}): {n} files, --jobs 2: {seconds:6.1f} s, {per:5.3f} s/file = "
                  f"{per / baseline:4.2f}x the torch import; first verdict after {first:.2f} s")  # fmt: skip
            row.append(f"before ({before}) --jobs 2 {per:.3f} s/file = {per / baseline:.2f}x")
        cold = [timed([*diagnose, path], work)[0] for path in files[:COLD_SAMPLE]]
        per_cold = sum(cold) / len(cold)
        print(
            f"cold: one command per file ({COLD_SAMPLE} files)   {per_cold:6.2f} s/file "
            f"= {per_cold / baseline:4.1f}x the torch import"
        )
        for jobs in (1, 2):
            seconds, first = timed([*diagnose, "--jobs", str(jobs), *files], work)
            per = seconds / n
            print(
                f"warm: {n} files in one command, --jobs {jobs}: {seconds:6.1f} s, {per:5.3f} s/file "
                f"= {per / baseline:4.2f}x the torch import, {per_cold / per:5.1f}x faster than cold; "
                f"first verdict after {first:.2f} s"
            )
            row.append(f"--jobs {jobs} {per:.3f} s/file = {per / baseline:.2f}x, first after {first:.2f} s")
        if keep:
            from benchmarks.results import record

            what = f"{n} files" if exercise == "train_step" else f"{n} {exercise} files"
            record("diagnose_per_file", f"{what}: " + "; ".join(row))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
