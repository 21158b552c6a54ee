"""The graded copy's language comes from the notebook's edition metadata, else the assignment's
edition; a hostile value is ignored, and nothing of it reaches the seed's lesson id."""

import nbformat
import pytest

from autograder.grading.language import english_lesson, learner_language


def notebook(language):
    nb = nbformat.v4.new_notebook()
    if language is not None:
        nb.metadata["autograd_course"] = {"lesson": "lesson3_zeroing_grad", "language": language}
    return nb


def resources(assignment):
    return {"nbgrader": {"assignment": assignment, "notebook": assignment}}


def test_a_portuguese_edition_is_graded_in_portuguese_from_its_id_alone():
    assert learner_language(notebook(None), resources("lesson3_zeroing_grad_pt_br")) == "pt_BR"
    assert learner_language(notebook(None), resources("lesson3_zeroing_grad")) == "en"


def test_the_notebooks_own_edition_chooses_the_text_when_it_is_a_known_language():
    assert learner_language(notebook("pt_BR"), resources("lesson3_zeroing_grad")) == "pt_BR"
    assert learner_language(notebook("en"), resources("lesson3_zeroing_grad_pt_br")) == "en"


@pytest.mark.parametrize("hostile", ["../../x", "de", {"$ne": 1}, ["pt_BR"], 7, "", "pt_BR\x00", "PT_BR"])
def test_a_hostile_language_is_ignored_for_the_assignments_edition(hostile):
    assert learner_language(notebook(hostile), resources("lesson3_zeroing_grad_pt_br")) == "pt_BR"
    assert learner_language(notebook(hostile), resources("lesson3_zeroing_grad")) == "en"


def test_odd_metadata_and_resources_mean_english():
    nb = notebook(None)
    nb.metadata["autograd_course"] = "pt_BR"
    assert learner_language(nb, None) == "en"
    assert learner_language(nb, {"nbgrader": "x"}) == "en"
    assert learner_language(nb, {"nbgrader": {"assignment": ["_pt_br"]}}) == "en"
    assert learner_language(nb, resources("_pt_br")) == "en"


def test_both_editions_derive_their_hidden_seeds_from_the_english_lesson():
    assert english_lesson("lesson3_zeroing_grad_pt_br") == english_lesson("lesson3_zeroing_grad")
    assert english_lesson("lesson3_zeroing_grad") == "lesson3_zeroing_grad"
