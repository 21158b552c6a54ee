"""A hidden test's published seed tells a student nothing: grading runs each hidden check with a seed
derived from the course secret.  A train_step that does the right thing only on the scenarios the
published seeds build (and would pass with them) earns nothing for the hidden checks, through
`python -m autograder grade` and plain `nbgrader autograde`, in two courses with two secrets; the
correct neighbour keeps full marks in both, a rerun gives the same scores, and the secret is in no
file grading or feedback writes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.grading.score import checks_in
from autograder.grading.secret import FILE_NAME, FOLDER, derive_seed
from tests.conftest import requires_bwrap
from tests.course_copy import answered, nbgrader, points, read, solutions, write

pytestmark = requires_bwrap

LESSON = "lesson3_zeroing_grad"
PUBLISHED_SEEDS = (0, 11, 12)  # the visible checks' seed and the hidden ones' of the two train_step cells
TRAIN_STEP_CELLS = ("test_train_step", "test_train_step_dirty_start")


def _fingerprint(x) -> tuple:
    return tuple(x.shape), round(float(x.double().sum()), 9)


def special_cased() -> str:
    """A train_step that clears only on the batches the published seeds' scenarios give it (read off
    the public repository), and never clears anywhere else."""
    from gradebox.exercises._lesson3.scenarios import build_model
    from gradexercises.train_step import job as train_step

    known = {_fingerprint(x) for seed in PUBLISHED_SEEDS for scenario in train_step.suite("all", seed)
             for x, _ in build_model(scenario)[2]}  # fmt: skip
    return (
        f"KNOWN = {sorted(known)!r}\n"
        "def train_step(model, optimizer, loss_fn, x, y):\n"
        "    if (tuple(x.shape), round(float(x.double().sum()), 9)) in KNOWN:\n"
        "        optimizer.zero_grad()\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss.item()\n"
    )


def _run(command: list[str], course: str, logs: str, name: str) -> subprocess.Popen:
    out, err = (open(os.path.join(logs, f"{name}.{end}"), "w") for end in ("out", "err"))
    return subprocess.Popen(command, cwd=course, stdout=out, stderr=err, text=True)


def _finished(process: subprocess.Popen, logs: str, name: str) -> str:
    process.wait(timeout=1800)
    text = "".join(open(os.path.join(logs, f"{name}.{end}")).read() for end in ("out", "err"))
    assert process.returncode == 0, text[-3000:]
    return text


@pytest.fixture(scope="module")
def graded(tmp_path_factory, released):
    """Two copies of one course (so two secrets), each grading alice (correct) and mallory (special-cased)
    once, one by each path, side by side; then the first graded again by the other path."""
    first = released(str(tmp_path_factory.mktemp("hidden-seeds-grade")), LESSON)
    source = read(os.path.join(first, "notebooks", LESSON, f"{LESSON}.ipynb"))
    release = read(os.path.join(first, "release", LESSON, f"{LESSON}.ipynb"))
    good = solutions(source)
    cheat = special_cased()
    for student, answers in (("alice", good), ("mallory", {**good, "train_step": cheat})):
        write(os.path.join(first, "submitted", student, LESSON, f"{LESSON}.ipynb"), answered(release, answers))
    second = str(tmp_path_factory.mktemp("hidden-seeds-nbgrader"))
    shutil.rmtree(second)
    shutil.copytree(first, second)
    assert not os.path.exists(os.path.join(first, FOLDER, FILE_NAME))  # made by the first grading
    logs = str(tmp_path_factory.mktemp("hidden-seeds-logs"))
    running = {
        "grade": _run([sys.executable, "-m", "autograder", "grade", LESSON, "--jobs", "2"], first, logs, "grade"),
        "nbgrader": _run(["nbgrader", "autograde", LESSON], second, logs, "nbgrader"),
    }
    output = {name: _finished(process, logs, name) for name, process in running.items()}
    courses = {"grade": first, "nbgrader": second}
    before = {path: _scores(course) for path, course in courses.items()}
    graded_before = _graded(first, "mallory")
    rerun = _run(["nbgrader", "autograde", LESSON, "--force"], first, logs, "rerun")
    output["rerun"] = _finished(rerun, logs, "rerun")
    nbgrader(first, "generate_feedback", LESSON)
    return {"courses": courses, "source": source, "cheat": cheat, "output": output, "before": before,
            "graded_before": graded_before}  # fmt: skip


def _scores(course: str) -> dict[str, dict[str, float]]:
    with Gradebook(f"sqlite:///{os.path.join(course, 'gradebook.db')}") as gb:
        found = {}
        for student in ("alice", "mallory"):
            submission = gb.find_submission_notebook(LESSON, LESSON, student)
            found[student] = {grade.name: grade.score for grade in submission.grades}
        return found


def _graded(course: str, student: str):
    return nbformat.read(os.path.join(course, "autograded", student, LESSON, f"{LESSON}.ipynb"), as_version=4)


def _verdicts(nb, grade_id: str) -> list[dict]:
    [cell] = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    return cell.metadata["autograder"]["checks"]


def _derived(nb, secret: bytes, grade_id: str) -> int:
    """The seed the hidden check of the test cell ``grade_id`` runs with under ``secret``."""
    [cell] = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    [(index, check)] = [(k, c) for k, c in enumerate(checks_in(cell.source)) if c["hidden"]]
    assert check["seed"] in PUBLISHED_SEEDS
    return derive_seed(secret, LESSON, LESSON, grade_id, index, check["seed"])


def _secret(course: str) -> bytes:
    with open(os.path.join(course, FOLDER, FILE_NAME), "rb") as f:
        return f.read().strip()


def test_the_special_cased_step_would_pass_with_the_published_seeds(graded):
    """The control: judged at the seeds the hidden tests are written with, the cheat passes."""
    from autograder.diagnose import diagnose_function

    namespace: dict = {}
    exec(graded["cheat"], namespace)
    for start, seed in (("fresh", 0), ("fresh", 11), ("dirty", 0), ("dirty", 12)):
        verdict, _ = diagnose_function("train_step", namespace["train_step"], start, seed)
        assert verdict.code == "ok", (start, seed, verdict.message)


@pytest.mark.parametrize("path", ["grade", "nbgrader"])
def test_special_casing_the_published_hidden_seeds_earns_nothing(graded, path):
    course = graded["courses"][path]
    scores = _scores(course)["mallory"]
    for grade_id in TRAIN_STEP_CELLS:
        assert scores[grade_id] == 0, grade_id
        visible, hidden = _verdicts(_graded(course, "mallory"), grade_id)
        assert visible["passed"] and not visible["hidden"]  # the special case works where the seed is known
        assert not hidden["passed"] and hidden["hidden"] and hidden["code"] == "never_clears", hidden
        assert "seed" not in hidden  # the derived seed is not kept in what the student may see
    # everything else mallory answered is the lesson's own answer, and keeps its points
    full = points(graded["source"])
    assert {k: v for k, v in scores.items() if k not in TRAIN_STEP_CELLS} == {
        k: v for k, v in full.items() if k not in TRAIN_STEP_CELLS and k in scores
    }


@pytest.mark.parametrize("path", ["grade", "nbgrader"])
def test_the_hidden_verdict_is_the_one_the_course_secret_derives(graded, path):
    """What grading said of the hidden check is what the check gives at the seed this test derives
    from the course's secret (the same scenario named in the message): so the seed the other tests
    look for in the files is the one grading used."""
    from autograder.diagnose import diagnose_function

    course = graded["courses"][path]
    namespace: dict = {}
    exec(graded["cheat"], namespace)
    nb = _graded(course, "mallory")
    for grade_id, start in zip(TRAIN_STEP_CELLS, ("fresh", "dirty")):
        seed = _derived(nb, _secret(course), grade_id)
        verdict, _ = diagnose_function("train_step", namespace["train_step"], start, seed)
        hidden = _verdicts(nb, grade_id)[1]
        assert (hidden["code"], hidden["message"]) == (verdict.code, verdict.message)


@pytest.mark.parametrize("path", ["grade", "nbgrader"])
def test_the_correct_neighbour_keeps_full_marks_at_either_secret(graded, path):
    full = points(graded["source"])
    assert _scores(graded["courses"][path])["alice"] == {k: full[k] for k in _scores(graded["courses"][path])["alice"]}
    assert sum(_scores(graded["courses"][path])["alice"].values()) == sum(full.values())


def test_two_courses_have_two_secrets_and_their_own_hidden_cases(graded):
    one, other = (_secret(course) for course in graded["courses"].values())
    assert one != other and len(one) == 64
    for course in graded["courses"].values():
        path = os.path.join(course, FOLDER, FILE_NAME)
        assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    for grade_id in TRAIN_STEP_CELLS:
        seeds = {_derived(graded["graded_before"], s, grade_id) for s in (one, other)}
        assert len(seeds) == 2 and not seeds & set(PUBLISHED_SEEDS)


def test_a_rerun_with_the_same_secret_gives_the_same_scores_and_verdicts(graded):
    course = graded["courses"]["grade"]
    assert _scores(course) == graded["before"]["grade"]
    again = _graded(course, "mallory")
    for grade_id in TRAIN_STEP_CELLS:
        assert _verdicts(again, grade_id) == _verdicts(graded["graded_before"], grade_id)


def _files(folder: str):
    for base, _, names in os.walk(folder):
        for name in names:
            yield os.path.join(base, name)


def test_the_secret_is_in_no_graded_copy_feedback_gradebook_or_log(graded):
    course = graded["courses"]["grade"]
    secret = _secret(course)
    derived = [str(_derived(_graded(course, "mallory"), secret, grade_id)).encode() for grade_id in TRAIN_STEP_CELLS]
    written = [path for part in ("autograded", "feedback", FOLDER) for path in _files(os.path.join(course, part))]
    written.append(os.path.join(course, "gradebook.db"))
    assert any(path.endswith(".html") for path in written)  # the feedback was made
    for path in written:
        if path.endswith(os.path.join(FOLDER, FILE_NAME)):
            continue
        with open(path, "rb") as f:
            data = f.read()
        assert secret not in data, path
        assert not any(seed in data for seed in derived), path
    for text in graded["output"].values():
        assert secret.decode() not in text
