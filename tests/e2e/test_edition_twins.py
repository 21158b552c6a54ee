"""Both editions of a lesson, released, collected and graded side by side in one course: the same
answers score the same in English and in Portuguese (codes, passed, points, hidden checks), and the
Portuguese graded copy and feedback page are in Portuguese while the metadata keeps the English message
the report reads.  A submission's edition metadata may choose the language of its text, never its score:
a hostile value ("../../x", "de", a dict) changes nothing."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

from autograder.i18n import speaking
from tests.conftest import requires_bwrap
from tests.course_copy import NEVER_CLEARS, answered, nbgrader, read, solutions, write

pytestmark = requires_bwrap

LESSON = "lesson3_zeroing_grad"
EDITION = "lesson3_zeroing_grad_pt_br"
SYNTAX_ERROR = "def train_step(model, optimizer, loss_fn, x, y):\n    loss = loss_fn(model(x), y\n"
HOSTILE = {"mallory": "../../x", "oscar": "de", "trudy": {"$ne": 1}}


def answers(good: dict[str, str]) -> dict[str, dict[str, str]]:
    return {
        "alice": good,
        "bob": {**good, "train_step": NEVER_CLEARS},
        "carl": {**good, "train_step": SYNTAX_ERROR},
        "erin": {},
        **{name: {**good, "train_step": NEVER_CLEARS} for name in HOSTILE},
    }


@pytest.fixture(scope="module")
def twins(tmp_path_factory, released):
    course = released(str(tmp_path_factory.mktemp("edition-twins")), LESSON, EDITION)
    good = solutions(read(os.path.join(course, "notebooks", LESSON, f"{LESSON}.ipynb")))
    for assignment in (LESSON, EDITION):
        release = read(os.path.join(course, "release", assignment, f"{assignment}.ipynb"))
        for student, given in answers(good).items():
            nb = answered(release, given)
            if student in HOSTILE:
                nb["metadata"]["autograd_course"] = {"lesson": LESSON, "language": HOSTILE[student]}
            write(os.path.join(course, "submitted", student, assignment, f"{assignment}.ipynb"), nb)
    runs = {}
    for assignment in (LESSON, EDITION):
        runs[assignment] = subprocess.run([sys.executable, "-m", "autograder", "grade", assignment, "--jobs", "2"],
                                          cwd=course, capture_output=True, text=True, timeout=1800)  # fmt: skip
        nbgrader(course, "generate_feedback", assignment)
    return {"course": course, "runs": runs}


def scores(course: str, assignment: str) -> dict[str, dict[str, float]]:
    with Gradebook(f"sqlite:///{os.path.join(course, 'gradebook.db')}") as gb:
        return {
            student: {grade.name: grade.score for grade in gb.find_submission_notebook(assignment, assignment,
                                                                                        student).grades}
            for student in answers({})
        }  # fmt: skip


def graded(course: str, assignment: str, student: str) -> dict:
    return read(os.path.join(course, "autograded", student, assignment, f"{assignment}.ipynb"))


def verdicts(nb: dict) -> list[dict]:
    return [check for cell in nb["cells"] for check in cell["metadata"].get("autograder", {}).get("checks", [])]


def feedback(course: str, assignment: str, student: str) -> str:
    with open(os.path.join(course, "feedback", student, assignment, f"{assignment}.html"), encoding="utf-8") as f:
        return f.read()


def test_both_editions_are_graded(twins):
    for assignment, run in twins["runs"].items():
        assert run.returncode == 0, (assignment, run.stdout[-3000:], run.stderr[-3000:])


def test_the_same_answers_score_the_same_in_both_editions(twins):
    english, portuguese = scores(twins["course"], LESSON), scores(twins["course"], EDITION)
    assert english == portuguese
    assert english["alice"] != english["bob"] and english["erin"] != english["alice"]
    assert english["mallory"] == english["bob"], "a hostile language changes no score"


def test_the_same_answers_get_the_same_codes_and_the_same_hidden_checks(twins):
    for student in answers({}):
        ours = verdicts(graded(twins["course"], LESSON, student))
        theirs = verdicts(graded(twins["course"], EDITION, student))
        assert [(v["exercise"], v["code"], v["passed"], v.get("hidden")) for v in ours] == [
            (v["exercise"], v["code"], v["passed"], v.get("hidden")) for v in theirs
        ], student
        # the metadata's message is English in both (the report reads it); what is shown follows the edition
        assert [v["message"] for v in ours] == [v["message"] for v in theirs], student


def test_the_portuguese_graded_copy_shows_portuguese_and_keeps_english_for_the_report(twins):
    bob = verdicts(graded(twins["course"], EDITION, "bob"))
    never = next(v for v in bob if v["code"] == "never_clears")
    assert never["language"] == "pt_BR" and never["shown"] != never["message"]
    with speaking("pt_BR"):
        from autograder.i18n import _

        assert _("Also:") != "Also:", "the Portuguese catalogue is compiled into the package"
    english = verdicts(graded(twins["course"], LESSON, "bob"))
    assert {v["language"] for v in english} == {"en"} and all(v["shown"] == v["message"] for v in english)


def test_the_portuguese_feedback_page_is_in_portuguese(twins):
    page = feedback(twins["course"], EDITION, "bob")
    english = feedback(twins["course"], LESSON, "bob")
    assert "Your results at a glance" in english and "Your results at a glance" not in page
    assert "Seus resultados" in page and "Para corrigir:" in page
    never = next(v for v in verdicts(graded(twins["course"], EDITION, "bob")) if v["code"] == "never_clears")
    first_sentence = never["message"].split(". ")[0]
    assert first_sentence not in page, "no English diagnosis on the Portuguese page"
    assert "never_clears" in page, "codes stay as they are"


@pytest.mark.parametrize("student", sorted(HOSTILE))
def test_a_hostile_language_in_the_metadata_is_ignored_for_the_editions_own(twins, student):
    for assignment, language in ((LESSON, "en"), (EDITION, "pt_BR")):
        checks = verdicts(graded(twins["course"], assignment, student))
        assert checks and {v["language"] for v in checks} == {language}, (assignment, student)


def test_the_report_of_the_portuguese_edition_reads_its_verdicts(twins):
    done = subprocess.run([sys.executable, "-m", "autograder", "report", EDITION], cwd=twins["course"],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    html = open(os.path.join(twins["course"], "reports", f"{EDITION}.html"), encoding="utf-8").read()
    assert "never_clears" in html and "bob" in html
