"""Only this grading run speaks as the grader: a submission's grader-owned metadata is dropped at
intake, the notes of a pass are that run's, and a note shows as plain text.

Beside autograder/grading/grader_owned.py; also tries the notes (notes.py) and RestoreStructure
(structure.py) that run after it."""

import copy
import html
import re

import nbformat
from nbconvert.filters import markdown2html
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.grading.grader_owned import DropGraderMetadata, drop_grader_metadata
from autograder.grading.notes import (
    KEY,
    NOTE_CELL_TAG,
    REVIEW,
    RecordGradingNotes,
    RecordNotes,
    add_note,
    notebook_notes,
    notebook_review,
)
from autograder.grading.structure import RestoreStructure
from tests.course_copy import ROOT

FORGED = {"notes": ["FORGED note \x1b[2J\x1b[H"], "review": ["FORGED review"], "graded": True}
FORGED_CHECKS = {"checks": [{"exercise": "f", "passed": True, "code": "ok", "message": "FORGED"}],
                 "quiz": {"question": "q1", "answer": "b", "right": True}, "added": True}  # fmt: skip


def graded(gid, source, solution=False):
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade_id": gid, "grade": not solution, "solution": solution, "locked": not solution,
                                 "points": 0 if solution else 1, "schema_version": 3}  # fmt: skip
    return cell


def released():
    return new_notebook(cells=[new_markdown_cell("# Lesson"), graded("f", "raise NotImplementedError()", True),
                               graded("test_f", "check(f)")])  # fmt: skip


def forged_submission():
    """The released notebook, answered, with the grader's metadata written by the student everywhere."""
    nb = released()
    nb.cells[1].source = "def f(): return 1"
    nb.cells.append(new_code_cell("helper = 2"))  # a cell of the student's own
    nb.cells.insert(0, new_markdown_cell("**Grading notes**\n\n- FORGED cell"))
    nb.cells[0].metadata["tags"] = [NOTE_CELL_TAG, "mine"]
    nb.metadata["autograder"] = copy.deepcopy(FORGED)
    for cell in nb.cells:
        cell.metadata["autograder"] = copy.deepcopy(FORGED_CHECKS)
    return nb


def test_a_submissions_notebook_notes_review_items_and_graded_mark_are_dropped():
    nb, _ = DropGraderMetadata().preprocess(forged_submission(), {})
    assert "autograder" not in nb.metadata


def test_every_cells_grader_metadata_is_dropped_and_its_nbgrader_metadata_left_to_restore():
    nb = forged_submission()
    drop_grader_metadata(nb)
    assert all("autograder" not in cell.metadata for cell in nb.cells)
    assert nb.cells[2].metadata["nbgrader"]["grade_id"] == "f"  # RestoreStructure and nbgrader's to restore


def test_a_cell_tagged_as_the_notes_cell_stays_as_the_students_own_without_the_tag():
    nb = forged_submission()
    drop_grader_metadata(nb)
    assert nb.cells[0].metadata["tags"] == ["mine"] and "FORGED cell" in nb.cells[0].source


def test_a_submission_without_grader_metadata_is_left_as_it_is():
    nb = released()
    before = copy.deepcopy(nb)
    assert drop_grader_metadata(nb) == 0 and nb == before


def test_the_course_drops_it_first_of_the_sanitizing_steps():
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=ROOT).load_config()
    steps = config.Autograde.sanitize_preprocessors
    assert steps[0] == "autograder.grading.grader_owned.DropGraderMetadata"
    assert steps.index("autograder.grading.notes.RecordNotes") > 0


def _sanitized(nb, resources, release_path):
    """The course's sanitizing steps that concern notes: drop, restore, record."""
    nb, resources = DropGraderMetadata().preprocess(nb, resources)
    nb, resources = RestoreStructure(release_notebook=release_path).preprocess(nb, resources)
    return RecordNotes().preprocess(nb, resources)


def test_a_forged_submission_keeps_no_forged_note_review_or_verdict_after_sanitizing(tmp_path):
    release_path = str(tmp_path / "release.ipynb")
    nbformat.write(released(), release_path)
    nb, _ = _sanitized(forged_submission(), {}, release_path)
    assert "FORGED" not in nbformat.writes(nb).replace("FORGED cell", "")
    assert notebook_notes(nb) == [] and notebook_review(nb) == [] and nb.metadata.autograder["graded"] is False
    added = [c for c in nb.cells if c.source == "helper = 2"]
    assert added[0].metadata["autograder"].pop("seen_as").endswith(" of your notebook")  # see cell_label.py
    assert added[0].metadata["autograder"] == {"added": True}  # the grader's own mark, this run's


def test_a_forged_submission_without_its_released_notebook_keeps_nothing_forged(tmp_path):
    nb, resources = _sanitized(forged_submission(), {}, str(tmp_path / "missing.ipynb"))
    assert notebook_notes(nb) == ["The released notebook was not found, so the cells were graded as submitted."]
    assert all("checks" not in c.metadata.get("autograder", {}) for c in nb.cells)


def test_the_sanitizing_pass_writes_only_its_own_notes_even_over_a_students_metadata():
    nb = forged_submission()  # as if the drop were missing from an instructor's older config
    resources = {}
    add_note(resources, "The cell 'test_f' had been edited; the original was put back.")
    nb, _ = RecordNotes().preprocess(nb, resources)
    assert notebook_notes(nb) == ["The cell 'test_f' had been edited; the original was put back."]
    assert notebook_review(nb) == []


def test_the_autograding_pass_adds_its_notes_to_the_sanitizing_pass_of_the_same_run():
    nb, _ = RecordNotes().preprocess(released(), {KEY: ["from sanitizing"]})
    nb, _ = RecordGradingNotes().preprocess(nb, {KEY: ["from scoring"], REVIEW: ["f (cell In [2]): stopped"]})
    assert notebook_notes(nb) == ["from sanitizing", "from scoring"]
    assert notebook_review(nb) == ["f (cell In [2]): stopped"] and nb.metadata.autograder["graded"] is True


def test_a_graded_copy_handed_in_again_has_its_old_notes_replaced_not_merged():
    first, _ = RecordGradingNotes().preprocess(released(), {KEY: ["old run"], REVIEW: ["old review"]})
    again = nbformat.reads(nbformat.writes(first), as_version=4)
    again, _ = DropGraderMetadata().preprocess(again, {})
    again, _ = RecordNotes().preprocess(again, {KEY: ["this run"]})
    assert notebook_notes(again) == ["this run"] and notebook_review(again) == []
    assert sum(NOTE_CELL_TAG in c.metadata.get("tags", []) for c in again.cells) == 1


def test_a_note_quoting_markdown_shows_as_plain_text_in_one_bullet():
    quoted = "'x](javascript:alert(1)) <b>bold</b> *em* `code`\n- Needs review: FORGED\n# Heading.ipynb'"
    nb, _ = RecordNotes().preprocess(released(), {KEY: [f"{quoted} was not graded: it was a link."]})
    html = markdown2html(nb.cells[0].source)
    assert html.count("<li>") == 1 and "<b>" not in html and "<em>" not in html and "<h1" not in html
    assert "<a " not in html and "<code>" not in html
    assert "*em*" in html and "`code`" in html and "- Needs review: FORGED" in html


def test_an_ordinary_note_reads_the_same_in_the_rendered_cell():
    note = "'data.csv' was not graded: it was a link, and a submission holds only regular files (moved)."
    nb, _ = RecordNotes().preprocess(released(), {KEY: [note]})
    rendered = markdown2html(nb.cells[0].source)
    assert note in html.unescape(re.sub(r"<[^>]+>", "", rendered)).splitlines()
