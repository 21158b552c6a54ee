"""A notebook that Colab saved grades to the same score as the same answers saved by JupyterLab.

Colab rewrites a notebook when it saves it (tests/e2e/colab/saved.py lists what changes): nbformat
4.0 without cell ids, its own metadata, stored outputs and widget state; and students' cells can
lose nbgrader's metadata on the way.  Every lesson is graded with `python -m autograder grade`.

What the same answers score when JupyterLab saves them is written down in ``EXPECTED``, grade by
grade, and each Colab save is held to its family's: only the Colab saves are graded here.  Those
scores are what the JupyterLab saves get: tests/e2e/test_nbgrader_roundtrip.py grades the very same
notebooks with plain `nbgrader autograde` (the answered release and the blank one, for every
assignment; its bob is lesson 3's "wrong" family), and `grade` scores as autograde does
(test_grading_adversarial's test_both_paths_score_the_same).  Lesson 3's "worse" family, a
train_step that never clears and nothing else answered, scores nothing: its only answer fails both
of its checks, and an unanswered exercise fails its own.
"""

import os
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

from tests.conftest import LESSONS, requires_bwrap
from tests.course_copy import (
    CLEARS_AFTER_STEP,
    NEVER_CLEARS,
    answered,
    points,
    read,
    solutions,
    write,
)
from tests.e2e.colab.saved import colab_saved

pytestmark = [pytest.mark.slow, requires_bwrap]
LESSON3 = "lesson3_zeroing_grad"
SCRATCH = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": "print('trying')"}

# Every lesson, and one Portuguese edition (its install cell sets the language; the packages carry the
# compiled catalogues): an edition is built from its lesson, so one of them tells what the others would.
ASSIGNMENTS = (*LESSONS, "lesson3_zeroing_grad_pt_br")


def submissions(source: dict, release: dict, assignment: str) -> dict[str, dict]:
    """Student -> notebook; students with the same prefix handed in the same answers."""
    good = answered(release, solutions(source))
    messy = colab_saved(good, strip="answers", seed=3, github_link=True, name=f"Copy of {assignment}.ipynb")
    messy["cells"].insert(5, dict(SCRATCH, metadata={"id": "scratchCell01"}))  # a cell the student added
    found = {
        "good_colab": colab_saved(good, seed=1),
        "good_colab_lost_every_metadata": colab_saved(good, strip="all", seed=2),
        "good_colab_lost_answer_metadata_and_more": messy,
        "blank_colab_lost_every_metadata": colab_saved(release, strip="all", seed=4),
    }
    if assignment == LESSON3:
        wrong = answered(release, {**solutions(source), "train_step": CLEARS_AFTER_STEP, "quiz_q1": 'q1 = "zzz"'})
        worse = answered(release, {"train_step": NEVER_CLEARS})
        found.update(
            wrong_colab_lost_every_metadata=colab_saved(wrong, strip="all", seed=5),
            worse_colab_lost_answer_metadata=colab_saved(worse, strip="answers", seed=6),
        )
    return found


# What each family's answers score when JupyterLab saves them, from the source's points ("full": every
# grade's points).  A wrong quiz answer costs nothing (it is formative); a train_step that clears after
# the step fails the dirty-start check; one that never clears, with nothing else answered, scores nothing.
EXPECTED = {
    "good": lambda full: full,
    "blank": lambda full: {g: 0.0 for g in full},
    "wrong": lambda full: {**full, "test_train_step_dirty_start": 0.0},
    "worse": lambda full: {g: 0.0 for g in full},
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory, released):
    course = released(str(tmp_path_factory.mktemp("colab-class")), *ASSIGNMENTS)
    handed_in = {}
    for assignment in ASSIGNMENTS:
        source = read(os.path.join(course, "notebooks", assignment, f"{assignment}.ipynb"))
        release = read(os.path.join(course, "release", assignment, f"{assignment}.ipynb"))
        handed_in[assignment] = submissions(source, release, assignment)
        for student, nb in handed_in[assignment].items():
            write(os.path.join(course, "submitted", student, assignment, f"{assignment}.ipynb"), nb)
    # Every lesson in one run, as an instructor grading the whole course would.
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", *ASSIGNMENTS, "--jobs", "2"], cwd=course,
                          capture_output=True, text=True, timeout=1800)  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    for assignment in ASSIGNMENTS:
        assert f"{assignment}: {len(handed_in[assignment])} graded" in done.stdout, done.stdout[-4000:]
    return course, handed_in


def scores(course: str, assignment: str, student: str) -> dict[str, float]:
    with Gradebook(f"sqlite:///{os.path.join(course, 'gradebook.db')}") as gb:
        notebook = gb.find_submission_notebook(assignment, assignment, student)
        return {grade.name: grade.score for grade in notebook.grades}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_scores_match_jupyterlab(graded, assignment):
    """Every Colab save, grade by grade: full marks answered (metadata lost or not), none blank, and
    lesson 3's two mistakes what they cost in JupyterLab (a wrong quiz answer is formative)."""
    course, handed_in = graded
    full = points(read(os.path.join(course, "notebooks", assignment, f"{assignment}.ipynb")))
    for student in handed_in[assignment]:
        family = student.split("_")[0]
        assert scores(course, assignment, student) == EXPECTED[family](full), student


def test_says_what_was_restored(graded):
    course, _ = graded
    path = os.path.join(course, "autograded", "good_colab_lost_answer_metadata_and_more", LESSON3, f"{LESSON3}.ipynb")
    nb = read(path)
    notes = nb["metadata"]["autograder"]["notes"]
    assert any("train_step' had lost its grading metadata; it was restored" in note for note in notes), notes
    sources = ["".join(c["source"]) for c in nb["cells"]]
    assert "print('trying')" in sources  # the student's own cell is kept
    assert any("colab.research.google.com/github/someone/course" in s for s in sources)  # Colab's link cell too
