"""How long `python -m autograder diagnose` takes per file, against the floor it cannot beat.

Prints, for N copies of a correct train_step (and the lesson's wrong variants from the corpus):
seconds per file with --jobs 1 and with one job per CPU, and the baseline measured in the same
run: a bare `python -c "import torch"` (every sandboxed file pays one).

    python benchmarks/diagnose_per_file.py [N]
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


def timed(command: list[str], cwd: str) -> float:
    began = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - began


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    work = tempfile.mkdtemp()
    try:
        files = []
        for i in range(n):
            path = os.path.join(work, f"student{i}.py")
            with open(path, "w") as f:
                f.write(CORRECT_TRAIN_STEP)
            files.append(path)
        wrong = sorted(
            p
            for p in glob.glob(os.path.join(ROOT, "tests", "corpus", "train_step", "*.py"))
            if not os.path.basename(p).startswith(("hang_", "ok_"))
        )[:n]
        baseline = min(timed([sys.executable, "-c", "import torch"], work) for _ in range(3))
        diagnose = [sys.executable, "-m", "autograder", "diagnose", "train_step"]
        print(f"baseline: python -c 'import torch' = {baseline:.2f} s")
        for label, paths in (("correct", files), ("corpus mistakes", wrong)):
            for jobs in (1, os.cpu_count() or 1):
                seconds = timed([*diagnose, "--jobs", str(jobs), *paths], work)
                per = seconds / len(paths)
                print(
                    f"{label:16s} {len(paths):3d} files, --jobs {jobs}: {seconds:6.1f} s total, "
                    f"{per:5.2f} s/file = {per / baseline:4.1f}x the torch import"
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
