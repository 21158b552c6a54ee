"""Who may grade what: one whole-course run, or shards side by side, and never one submission twice."""

import os
import signal
import subprocess
import sys
import threading

import pytest

from autograder.grading.course_assignment import GradeError
from autograder.grading.locks import Shard, claim, grading_lock

STUDENTS = [f"student{n:03d}" for n in range(1, 42)]


@pytest.mark.parametrize("count", [1, 2, 3, 7, 41, 50])
def test_shards_partition_evenly(count):
    groups = [Shard(k, count).take(list(reversed(STUDENTS))) for k in range(1, count + 1)]
    assert sorted(sum(groups, [])) == STUDENTS
    assert max(map(len, groups)) - min(map(len, groups)) <= 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("3/2", "between 1 and N"),
        ("0/1", "between 1 and N"),
        ("1", "K/N"),
        ("a/b", "K/N"),
        ("", "K/N"),
        ("-1/2", "K/N"),
    ],
)
def test_bad_shard_refused_with_help(text, message):
    with pytest.raises(GradeError, match=message):
        Shard.parse(text)


def test_shard_parse_forgives_spaces():
    assert Shard.parse(" 2 / 3 ") == Shard(2, 3) and str(Shard(2, 3)) == "2/3"


def hold(path, *args, **kwargs):
    """Holds grading_lock in a thread until the returned event is set; the thread is returned too."""
    entered, release = threading.Event(), threading.Event()

    def run():
        with grading_lock(path, *args, **kwargs):
            entered.set()
            release.wait(10)

    thread = threading.Thread(target=run)
    thread.start()
    assert entered.wait(10)
    return release, thread


def test_second_grading_run_refused(tmp_path):
    release, thread = hold(str(tmp_path))
    try:
        with pytest.raises(
            GradeError, match=rf"Another `python -m autograder grade` is grading this course \(process {os.getpid()}\)"
        ):
            with grading_lock(str(tmp_path)):
                pass
    finally:
        release.set()
        thread.join()
    with grading_lock(str(tmp_path)):
        pass  # free again


def test_shards_parallel_not_twice(tmp_path):
    release, thread = hold(str(tmp_path), Shard(1, 2))
    try:
        with grading_lock(str(tmp_path), Shard(2, 2)):
            pass
        with pytest.raises(GradeError, match=rf"Shard 1/2 is already being graded \(process {os.getpid()}\)"):
            with grading_lock(str(tmp_path), Shard(1, 2)):
                pass
        with pytest.raises(GradeError, match="Another `python -m autograder grade`"):
            with grading_lock(str(tmp_path)):
                pass  # a whole-course run would grade the shard's students too
    finally:
        release.set()
        thread.join()


def test_no_shard_during_whole_run(tmp_path):
    release, thread = hold(str(tmp_path))
    try:
        with pytest.raises(GradeError, match="without --shard is grading the whole course"):
            with grading_lock(str(tmp_path), Shard(2, 2)):
                pass
    finally:
        release.set()
        thread.join()


def test_one_claim_per_submission(tmp_path):
    with claim(str(tmp_path), "lesson3", "ann") as first:
        with claim(str(tmp_path), "lesson3", "ann") as second, claim(str(tmp_path), "lesson3", "bob") as other:
            assert (first, second, other) == (True, False, True)
    with claim(str(tmp_path), "lesson3", "ann") as again:
        assert again


def test_killed_grader_leaves_no_lock(tmp_path):
    code = (
        "import sys, time\n"
        "from autograder.grading.locks import claim, grading_lock\n"
        "with grading_lock(sys.argv[1]), claim(sys.argv[1], 'lesson3', 'ann'):\n"
        "    print('holding', flush=True)\n"
        "    time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        with pytest.raises(GradeError, match=rf"\(process {holder.pid}\)"):
            with grading_lock(str(tmp_path)):
                pass
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    with grading_lock(str(tmp_path)), claim(str(tmp_path), "lesson3", "ann") as mine:
        assert mine
