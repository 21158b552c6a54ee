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


def test_suite_profile_counts_a_small_run(tmp_path):
    script = os.path.join(ROOT, "benchmarks", "suite_profile.py")
    tests = os.path.join("tests", "unit", "course", "test_environment.py")
    kept = tmp_path / "junit.xml"
    command = [sys.executable, script, "--json", "--no-record", "--interval", "0.2", f"--keep-junit={kept}", "-n", "0",
               "-p", "no:cacheprovider", f"--basetemp={tmp_path / 'inner'}", tests]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["exit_code"] == 0 and figures["tests"] > 0
    assert set(figures["worker_seconds_by_folder"]) == {"unit/course"}
    assert set(figures["worker_seconds_by_file"]) == {"tests/unit/course/test_environment.py"}
    assert "costliest test files" in done.stdout and kept.read_text().startswith("<?xml")
    assert figures["cpu_seconds_by_kind"].get("pytest", 0) > 0  # the one pytest process, sampled


def test_suite_profile_exits_as_the_suite(tmp_path):
    script = os.path.join(ROOT, "benchmarks", "suite_profile.py")
    command = [sys.executable, script, "--json", "--no-record", "-n", "0", "-p", "no:cacheprovider",
               f"--basetemp={tmp_path / 'inner'}", os.path.join("tests", "no-such-file.py")]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 4, done.stderr[-2000:]  # pytest's own code for a usage error: no such file


def test_suite_profile_kinds_by_command_not_folder():
    from benchmarks.suite_profile import kind_of

    assert kind_of("/venv/bin/python -m pytest -q") == kind_of("/venv/bin/pytest tests") == "pytest"
    assert kind_of("/usr/bin/bwrap --bind /tmp/pytest-of-root/pytest-3/x /x") == "other"
    assert kind_of("/venv/bin/python -m ipykernel_launcher -f /tmp/pytest-of-root/k.json").startswith("kernels")
    server = "python -I -c import sys; sys.path[:0] = ['/c']; from gradebox.serve import main; main(sys.argv[1:])"
    assert kind_of(server).startswith("sandbox jobs")
    worker = "python -I -c from autograder.judge.worker import main; main(sys.argv[1:]) 8 13"
    assert kind_of(worker) == "judging workers"


@requires_bwrap
def test_diagnose_benchmark_times_another_lessons_exercise():
    script = os.path.join(ROOT, "benchmarks", "diagnose_per_file.py")
    # A smoke test of the script (it times 100 files by default): two files are enough to run every part.
    command = [sys.executable, script, "2", "--exercise", "predict", "--no-record"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "warm: 2 files in one command, --jobs 2" in done.stdout


def test_diagnose_benchmark_names_an_exercise_it_has_no_files_for():
    script = os.path.join(ROOT, "benchmarks", "diagnose_per_file.py")
    done = subprocess.run([sys.executable, script, "4", "--exercise", "nothing", "--no-record"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode != 0 and "no corpus files for 'nothing'" in done.stderr
