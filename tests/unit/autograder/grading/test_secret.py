"""The hidden checks' seeds come from a course secret only the grader can read: derived the same way
every time, in a range every exercise takes, and read only from a file that nobody else could have
read, written or put there.

Beside autograder/grading/secret.py; also tries how score.py reads the checks the seeds go to."""

from __future__ import annotations

import glob
import multiprocessing
import os
import stat

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from traitlets.config import Config

from autograder.grading.score import ScoreChecks, checks_in
from autograder.grading.secret import (
    FILE_NAME,
    FOLDER,
    SEED_RANGE,
    SecretError,
    course_secret,
    default_path,
    derive_seed,
)
from autograder.verdict import Verdict
from gradebox import exercises
from tests.conftest import ROOT
from tests.course_copy import solutions

ONE, OTHER = b"a" * 64, b"b" * 64
HIDDEN_CELL = (
    "from autograder.checks import check_train_step\n"
    "check_train_step(train_step)\n"
    "### BEGIN HIDDEN TESTS\n"
    "check_train_step(train_step, seed=11)\n"
    "### END HIDDEN TESTS\n"
)


def _hidden_checks() -> list[tuple[str, str, str, int, dict]]:
    """(assignment, grade id, exercise's answer, index in the cell, check) of every hidden check of the lessons."""
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "notebooks", "*", "*.ipynb"))):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
                for k, check in enumerate(checks_in(cell.source)):
                    if check["hidden"]:
                        found.append((os.path.basename(os.path.dirname(path)), meta["grade_id"], path, k, check))
    return found


def test_the_same_secret_and_check_always_give_the_same_seed():
    assert derive_seed(ONE, "lesson3", "lesson3", "test_train_step", 1, 11) == derive_seed(
        ONE, "lesson3", "lesson3", "test_train_step", 1, 11
    )


def test_another_secret_or_another_check_gives_another_seed():
    base = ("lesson3", "lesson3", "test_train_step", 1, 11)
    seed = derive_seed(ONE, *base)
    assert derive_seed(OTHER, *base) != seed
    assert derive_seed(ONE, "lesson3", "lesson3", "test_train_step_dirty_start", 1, 11) != seed
    assert derive_seed(ONE, "lesson3", "lesson3", "test_train_step", 2, 11) != seed
    assert derive_seed(ONE, "lesson3", "lesson3", "test_train_step", 1, 12) != seed
    assert derive_seed(ONE, "lesson4", "lesson4", "test_train_step", 1, 11) != seed
    assert seed != 11


def test_derived_seeds_stay_in_the_range_every_suite_takes():
    seeds = [derive_seed(os.urandom(32), "a", "a", "test_f", k, 11) for k in range(2000)]
    assert all(1 <= s < SEED_RANGE for s in seeds)
    assert max(seeds) > SEED_RANGE // 2 and len(set(seeds)) == len(seeds)  # the whole range, no repeats


def test_every_hidden_block_of_the_lessons_gives_its_checks_a_derived_seed():
    """Each test cell with a hidden block has a hidden check found in it (the visible ones are not)."""
    found = {(assignment, grade_id) for assignment, grade_id, *_ in _hidden_checks()}
    blocks = set()
    for path in sorted(glob.glob(os.path.join(ROOT, "notebooks", "*", "*.ipynb"))):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code" and "BEGIN HIDDEN TESTS" in cell.source:
                blocks.add((os.path.basename(os.path.dirname(path)), cell.metadata["nbgrader"]["grade_id"]))
                assert not checks_in(cell.source)[0]["hidden"]  # each cell's first check is its visible one
    assert found == blocks and ("lesson3_zeroing_grad", "test_train_step_dirty_start") in found


def test_a_correct_answer_passes_every_hidden_check_at_any_secret():
    """Each lesson's own answers pass each hidden check at two secrets' seeds and at the range's top:
    every suite builds its scenarios (models, generators, torch.manual_seed) at any derived seed."""
    from autograder.diagnose import diagnose_function

    answers: dict[str, dict] = {}
    for assignment, grade_id, path, k, check in _hidden_checks():
        if path not in answers:
            answers[path] = {}
            exec("import torch\nfrom torch import nn\n", answers[path])
            for name, code in solutions(nbformat.read(path, as_version=4)).items():
                if not name.startswith("quiz_"):
                    exec(code, answers[path])
        seeds = {derive_seed(s, assignment, assignment, grade_id, k, check["seed"]) for s in (ONE, OTHER)}
        for seed in sorted(seeds | {SEED_RANGE - 1}):
            exercises.get(check["exercise"]).suite(check["start"], seed)
            verdict, _ = diagnose_function(check["exercise"], answers[path][check["function"]], check["start"], seed)
            assert verdict.code == "ok", (grade_id, seed, verdict.message)


# -- the secret's file ------------------------------------------------------------------------
def test_the_first_grading_makes_a_private_secret_in_a_missing_folder(tmp_path):
    path = default_path(str(tmp_path))
    secret = course_secret(path)
    assert stat.S_IMODE(os.stat(tmp_path / FOLDER).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600 and os.stat(path).st_uid == os.geteuid()
    assert len(secret) == 64 and int(secret, 16) >= 0
    assert course_secret(path) == secret  # read back, not made again
    assert os.listdir(tmp_path / FOLDER) == [FILE_NAME]  # no candidate left behind


def test_a_secret_is_made_private_whatever_the_umask(tmp_path):
    before = os.umask(0)
    try:
        course_secret(default_path(str(tmp_path)))
    finally:
        os.umask(before)
    assert stat.S_IMODE(os.stat(default_path(str(tmp_path))).st_mode) == 0o600


def test_two_secrets_made_in_two_courses_differ(tmp_path):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    assert course_secret(default_path(str(tmp_path / "one"))) != course_secret(default_path(str(tmp_path / "two")))


def test_a_course_folder_that_is_missing_is_named(tmp_path):
    with pytest.raises(SecretError, match="its parent folder does not exist"):
        course_secret(default_path(str(tmp_path / "no-course")))


def _first_use(path: str, barrier, results) -> None:
    barrier.wait()
    results.put(course_secret(path))


def test_two_graders_starting_at_once_share_one_secret(tmp_path):
    path = default_path(str(tmp_path))
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(8), context.Queue()
    graders = [context.Process(target=_first_use, args=(path, barrier, results)) for _ in range(8)]
    for grader in graders:
        grader.start()
    seen = {results.get(timeout=60) for _ in graders}
    for grader in graders:
        grader.join(timeout=60)
        assert grader.exitcode == 0
    assert seen == {course_secret(path)}
    assert os.listdir(tmp_path / FOLDER) == [FILE_NAME]


def _secret_file(tmp_path, mode: int = 0o600, data: bytes = ONE) -> str:
    path = default_path(str(tmp_path))
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)
    return path


def test_a_link_in_place_of_the_secret_is_refused_and_named(tmp_path):
    target = tmp_path / "chosen-by-someone"
    target.write_bytes(ONE)
    target.chmod(0o600)
    path = default_path(str(tmp_path))
    os.makedirs(os.path.dirname(path))
    os.symlink(target, path)
    with pytest.raises(SecretError, match=r"course-secret is a link"):
        course_secret(path)
    assert os.path.islink(path) and target.read_bytes() == ONE  # nothing replaced, nothing written


def test_a_link_in_place_of_the_folder_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (tmp_path / "course").mkdir()
    os.symlink(elsewhere, tmp_path / "course" / FOLDER)
    with pytest.raises(SecretError, match="is a link or not a folder"):
        course_secret(default_path(str(tmp_path / "course")))
    assert os.listdir(elsewhere) == []


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620], ids=oct)
def test_a_secret_others_could_read_or_write_is_refused(tmp_path, mode):
    path = _secret_file(tmp_path, mode)
    with pytest.raises(SecretError, match=r"readable or writable by others .*chmod 600"):
        course_secret(path)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another account needs root")
def test_a_secret_of_another_account_is_refused(tmp_path):
    path = _secret_file(tmp_path)
    os.chown(path, 65534, 65534)
    with pytest.raises(SecretError, match="belongs to user id 65534"):
        course_secret(path)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another account needs root")
def test_a_folder_of_another_account_is_refused(tmp_path):
    path = _secret_file(tmp_path)
    os.chown(os.path.dirname(path), 65534, 65534)
    with pytest.raises(SecretError, match="belongs to user id 65534, not to the grader"):
        course_secret(path)


def test_a_folder_every_account_may_write_is_refused(tmp_path):
    path = _secret_file(tmp_path)
    os.chmod(os.path.dirname(path), 0o777)
    with pytest.raises(SecretError, match="writable by every account: run `chmod o-rwx"):
        course_secret(path)


def test_a_fifo_in_place_of_the_secret_is_refused_at_once(tmp_path):
    path = default_path(str(tmp_path))
    os.makedirs(os.path.dirname(path), mode=0o700)
    os.mkfifo(path, 0o600)
    with pytest.raises(SecretError, match="not a regular file"):
        course_secret(path)


@pytest.mark.parametrize("data", [b"", b"short\n", b"x" * 5000], ids=["empty", "short", "too long"])
def test_a_secret_too_short_or_too_long_is_refused(tmp_path, data):
    path = _secret_file(tmp_path, data=data)
    with pytest.raises(SecretError, match="openssl rand -hex 32"):
        course_secret(path)
    assert open(path, "rb").read() == data  # left as it was


def test_a_named_secret_that_is_missing_is_refused_not_made(tmp_path):
    path = str(tmp_path / "mounted" / "course-secret")
    with pytest.raises(SecretError, match="does not exist"):
        course_secret(path, create=False)
    assert not os.path.exists(tmp_path / "mounted")


# -- ScoreChecks' use of it ---------------------------------------------------------------------
def _notebook():
    cell = new_code_cell(HIDDEN_CELL, metadata={"nbgrader": {"grade": True, "grade_id": "test_train_step"}})
    return new_notebook(cells=[cell])


def _hidden(config: Config, tmp_path) -> list[dict]:
    nb = _notebook()
    scorer = ScoreChecks(config=config)
    _, targets = scorer._plan(nb)
    scorer._hide_seeds(nb, targets, {"nbgrader": {"assignment": "lesson3_zeroing_grad", "notebook": "lesson3"}})
    return targets[0]


def _course(tmp_path) -> Config:
    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    return config


def test_hidden_checks_run_with_the_derived_seed_and_visible_ones_with_theirs(tmp_path, monkeypatch):
    monkeypatch.delenv("AUTOGRADER_SECRET_FILE", raising=False)
    visible, hidden = _hidden(_course(tmp_path), tmp_path)
    secret = course_secret(default_path(str(tmp_path)))
    assert visible["seed"] == 0 and not visible["hidden"]
    assert hidden["seed"] == derive_seed(secret, "lesson3_zeroing_grad", "lesson3", "test_train_step", 1, 11)
    assert hidden["seed"] != 11
    assert _hidden(_course(tmp_path), tmp_path)[1]["seed"] == hidden["seed"]  # a rerun: the same cases


def test_the_setting_or_the_environment_names_the_secret(tmp_path, monkeypatch):
    named = _secret_file(tmp_path / "mounted", data=OTHER)
    config = _course(tmp_path / "course")
    config.ScoreChecks.secret_file = named
    expected = derive_seed(OTHER, "lesson3_zeroing_grad", "lesson3", "test_train_step", 1, 11)
    assert _hidden(config, tmp_path)[1]["seed"] == expected
    monkeypatch.setenv("AUTOGRADER_SECRET_FILE", named)
    assert _hidden(_course(tmp_path / "course"), tmp_path)[1]["seed"] == expected
    assert not os.path.exists(tmp_path / "course" / FOLDER)  # a named secret: the course's is never made


def test_a_refused_secret_stops_scoring_with_its_reason(tmp_path, monkeypatch):
    monkeypatch.delenv("AUTOGRADER_SECRET_FILE", raising=False)
    _secret_file(tmp_path, 0o644)
    with pytest.raises(SecretError, match="readable or writable by others"):
        _hidden(_course(tmp_path), tmp_path)


def test_a_notebook_without_hidden_checks_needs_no_secret(tmp_path, monkeypatch):
    monkeypatch.delenv("AUTOGRADER_SECRET_FILE", raising=False)
    nb = _notebook()
    nb.cells[0].source = "check_train_step(train_step)\n"
    scorer = ScoreChecks(config=_course(tmp_path))
    _, targets = scorer._plan(nb)
    scorer._hide_seeds(nb, targets, {})
    assert targets[0][0]["seed"] == 0 and not os.path.exists(tmp_path / FOLDER)


class _Pool:
    def judge(self, exercise, start, seed, records, ended):
        self.seed = seed
        return Verdict(exercise, "ok", "Correct.")

    def judge_in(self, languages, exercise, start, seed, records, ended):
        verdict = self.judge(exercise, start, seed, records, ended)
        return verdict, dict.fromkeys(languages, verdict.message)


def test_the_graded_cell_keeps_no_derived_seed():
    cell = _notebook().cells[0]
    checks = checks_in(cell.source)
    checks[1]["seed"] = 123456789
    pool = _Pool()
    ScoreChecks()._write(cell, 0, checks, [], None, pool, set(), {})
    kept = cell.metadata["autograder"]["checks"]
    assert pool.seed == 123456789  # judged with the derived seed
    assert kept[0]["seed"] == 0 and "seed" not in kept[1] and kept[1]["hidden"]
    assert "123456789" not in nbformat.writes(new_notebook(cells=[cell]))
