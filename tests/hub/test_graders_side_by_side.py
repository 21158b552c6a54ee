"""Two `python -m autograder grade --shard K/2` processes writing one PostgreSQL gradebook at once
give every student the score one grader gives; killing one mid-way and running it again loses
nothing and grades nobody twice."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import psutil
import pytest

from autograder.grading.ledger import read_ledger
from tests.conftest import ROOT, requires_bwrap
from tests.course_copy import (
    CLEARS_AFTER_STEP,
    LOSS_NOT_SCALED,
    NEVER_CLEARS,
    answered,
    make_course,
    nbgrader,
    read,
    solutions,
    write,
)

pytestmark = [pytest.mark.hub, pytest.mark.slow, requires_bwrap]

LESSON = "lesson3_zeroing_grad"
STUDENTS = 8


def grader(course: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "autograder", "grade", LESSON, *args], cwd=course, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip


def finish(process: subprocess.Popen, timeout: float = 900) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err


def scores(postgres, database: str) -> dict[str, tuple]:
    """Each student's submission count, total score, and per-cell scores, read with SQL."""
    rows = postgres.sql(
        "SELECT s.student_id, count(DISTINCT s.id), "
        "coalesce(sum(coalesce(g.manual_score, g.auto_score)), 0), count(g.id), "
        "string_agg(gc.name || '=' || coalesce(g.auto_score::text, '-'), ',' ORDER BY gc.name) "
        "FROM submitted_assignment s JOIN submitted_notebook n ON n.assignment_id = s.id "
        "LEFT JOIN grade g ON g.notebook_id = n.id LEFT JOIN base_cell gc ON gc.id = g.cell_id "
        "GROUP BY s.student_id ORDER BY s.student_id",
        database=database,
    )
    found = {}
    for line in rows.splitlines():
        student, submissions, total, grades, cells = line.split("|")
        found[student] = (int(submissions), round(float(total), 3), int(grades), cells)
    return found


@pytest.fixture(scope="module")
def prepared(postgres, tmp_path_factory):
    """A class of eight lesson 3 submissions, as a course folder to copy, one per database."""
    base = make_course(str(tmp_path_factory.mktemp("side-by-side") / "base"))
    source = read(os.path.join(base, "notebooks", LESSON, f"{LESSON}.ipynb"))
    good = solutions(source)
    mix = [good, {**good, "train_step": NEVER_CLEARS}, {**good, "train_step": CLEARS_AFTER_STEP},
           {**good, "train_accumulated": LOSS_NOT_SCALED}, {}]  # fmt: skip
    made = {"n": 0}

    def course(name: str) -> tuple[str, str]:
        made["n"] += 1
        folder = str(tmp_path_factory.mktemp(name))
        shutil.rmtree(folder)
        shutil.copytree(base, folder)
        database = f"side_{made['n']}"
        with open(os.path.join(folder, "nbgrader_config.py"), "a") as f:
            f.write(f"\nc.CourseDirectory.db_url = {postgres.database(database)!r}\n")
        nbgrader(folder, "generate_assignment", LESSON)
        release = read(os.path.join(folder, "release", LESSON, f"{LESSON}.ipynb"))
        for i in range(STUDENTS):
            path = os.path.join(folder, "submitted", f"student{i:02d}", LESSON, f"{LESSON}.ipynb")
            write(path, answered(release, mix[i % len(mix)]))
        return folder, database

    return course


@pytest.fixture(scope="module")
def one_grader(prepared, postgres):
    course, database = prepared("one")
    code, out, err = finish(grader(course, "--jobs", "2"))
    assert code == 0, out + err
    return scores(postgres, database)


def test_two_graders_score_like_one(prepared, postgres, one_grader):
    course, database = prepared("two")
    first, second = grader(course, "--shard", "1/2", "--jobs", "1"), grader(course, "--shard", "2/2", "--jobs", "1")
    (code1, out1, err1), (code2, out2, err2) = finish(first), finish(second)
    assert (code1, code2) == (0, 0), out1 + err1 + out2 + err2
    assert "(shard 1/2: 4 of the submissions): 4 graded" in out1 and "(shard 2/2: 4 of the submissions)" in out2
    assert len(one_grader) == STUDENTS and len({total for _, total, _, _ in one_grader.values()}) > 1
    assert scores(postgres, database) == one_grader


def test_kill_and_rerun_grades_all_once(prepared, postgres, one_grader):
    course, database = prepared("killed")
    doomed, other = grader(course, "--shard", "1/2", "--jobs", "1"), grader(course, "--shard", "2/2", "--jobs", "1")
    tree: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:  # kill it once it graded one, with its next in its kernel
            # read as the grader reads it (an unreadable moment counts as nothing graded yet)
            if any(student in read_ledger(course, LESSON) for student in ("student00", "student02", "student04")):
                break
            assert doomed.poll() is None, "the shard ended before it could be killed"
            time.sleep(0.2)
        time.sleep(1.0)
        tree = [doomed_process := psutil.Process(doomed.pid), *doomed_process.children(recursive=True)]
        assert any(p.name() == "bwrap" for p in tree)  # its sandbox servers and kernels are running
        os.killpg(doomed.pid, signal.SIGKILL)  # as when a machine or a Kubernetes pod goes away
        doomed.wait()
    finally:
        if doomed.poll() is None:
            os.killpg(doomed.pid, signal.SIGKILL)
    code, out, err = finish(other)
    assert code == 0, out + err
    partial = scores(postgres, database)
    assert len(partial) < STUDENTS  # the killed shard left work undone
    code, out, err = finish(grader(course, "--shard", "1/2", "--jobs", "1"))
    assert code == 0, out + err
    redone = re.search(r"(\d) graded, (\d) already graded \(skipped\), 0 failed", out)
    assert redone and int(redone[1]) >= 1 and int(redone[2]) >= 1, out  # only what the killed run left undone
    assert scores(postgres, database) == one_grader  # one submission each, every cell graded once, same scores
    survivors = [p for p in tree if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert not survivors, survivors  # the killed shard's servers and kernels died with it


def test_benchmark_agrees_with_one_grader():
    script = os.path.join(ROOT, "benchmarks", "graders_side_by_side.py")
    # A smoke test: the script's every step, with the fewest processes (the two shard runs differ only
    # in --jobs, so one of them is enough here; test_two_graders_score_like_one checks the scores).
    command = [sys.executable, script, "--n", "2", "--jobs", "2", "--runs", "two", "--json", "--no-record"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["same_scores"] is True and set(figures["seconds"]) == {"one", "two"}
    unknown = subprocess.run([sys.executable, script, "--runs", "three"], capture_output=True, text=True, timeout=120)
    assert unknown.returncode == 2 and "--runs: unknown three; the runs are one, two, two-full" in unknown.stderr
