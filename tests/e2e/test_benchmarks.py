"""The benchmark scripts run, and the grading benchmark checks what it claims (equal scores)."""

import json
import os
import subprocess
import sys

from tests.conftest import ROOT, requires_bwrap


@requires_bwrap
def test_benchmark_grades_same_twice():
    script = os.path.join(ROOT, "benchmarks", "grade_throughput.py")
    command = [sys.executable, script, "--n", "2", "--skip-sandboxed", "--json", "--no-record"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["same_scores"] is True and figures["n"] == 2
    assert set(figures["seconds"]) == {"stock", "grade"} and figures["speedup_vs_stock"]["grade"] > 0
