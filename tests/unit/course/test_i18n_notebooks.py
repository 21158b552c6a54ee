"""course_i18n's units of a lesson: what a translator sees, and the notebook put back from their work.

Nothing here runs a notebook: the extractor and the builder are checked against the English sources
themselves (an identity catalogue must give them back byte for byte, a pseudo one must reach every
paragraph, comment and printed string and leave solutions, hidden tests and code alone)."""

import ast
import copy
import json
import os
import re

import pytest

import course_i18n
from tests.conftest import ROOT

LESSONS = course_i18n.LESSONS
# What the survey of the sources counted (markdown paragraphs, comment blocks): a silent skip shows here.
PARAGRAPHS = {"lesson1_requires_grad": 93, "lesson2_backward": 93, "lesson3_zeroing_grad": 98, "lesson4_no_grad": 87}


def source(lesson):
    with open(os.path.join(ROOT, "notebooks", lesson, f"{lesson}.ipynb"), encoding="utf-8") as f:
        return json.load(f)


def text(cell):
    return course_i18n._source(cell)


def pseudo(_context, english):
    return f"⟦{english}⟧"


@pytest.mark.parametrize("lesson", LESSONS)
def test_an_identity_translation_gives_the_english_source_back_byte_for_byte(lesson):
    nb = source(lesson)
    for cell in nb["cells"]:
        assert text(course_i18n.translated_cell(copy.deepcopy(cell), lambda _c, english: english)) == text(cell)


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_paragraph_is_a_unit_and_the_counts_match_the_survey(lesson):
    units = course_i18n.units(source(lesson))
    assert sum(u.role == "md" for u in units) == PARAGRAPHS[lesson]
    assert len({u.context for u in units}) == len(units), "each unit has its own context"
    assert sum(u.role == "doc" for u in units) >= 3, "the exercises' docstrings"


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_pseudo_translation_reaches_every_text_and_leaves_code_that_still_parses(lesson):
    nb = source(lesson)
    for cell in nb["cells"]:
        built = course_i18n.translated_cell(copy.deepcopy(cell), pseudo)
        before, after = text(cell), text(built)
        if course_i18n.skipped(cell):
            assert after == before
            continue
        if cell["cell_type"] == "markdown":
            for block in course_i18n._markdown_blocks(after)[::2]:
                assert (
                    not block.strip()
                    or course_i18n._fenced(block)
                    or block.startswith("⟦")
                    or not re.search(r"[A-Za-z]{2}", block)
                ), block
            continue
        ast.parse(course_i18n._masked(after))
        for line in after.splitlines():
            comment = re.search(r"(?:^|\s)#(?!#)\s?(.*)$", line)
            if comment and re.search(r"[A-Za-z]{2}", comment.group(1)) and '"' not in line and "'" not in line:
                assert "⟦" in line or "⟧" in line, f"{cell['id']}: comment not reached: {line}"
        # solutions and hidden tests are never touched
        assert course_i18n.REGION.findall(after) == course_i18n.REGION.findall(before)
        for region in re.finditer(course_i18n.REGION, before):
            assert region.group(0) in after


def test_an_fstrings_fields_survive_the_pseudo_translation():
    nb = source("lesson3_zeroing_grad")
    cell = next(c for c in nb["cells"] if c["id"] == "s05-where-04")
    built = text(course_i18n.translated_cell(cell, pseudo))
    assert "{slopes[0]:5.2f}" in built and "⟦" in built
    ast.parse(built)


def test_a_changed_english_sentence_makes_its_translation_fuzzy_with_the_old_english_beside_it(tmp_path):
    lesson = "lesson3_zeroing_grad"
    template = course_i18n.lesson_template(lesson)
    first = next(m for m in template if m.id and m.context.endswith("/md/1"))
    done = course_i18n.updated(template, None, "pt_BR")
    done.get(first.id, context=first.context).string = "Tradução"
    # the author edits the English sentence
    template.delete(first.id, first.context)
    template.add(first.id + " Edited.", None, context=first.context)
    again = course_i18n.updated(template, done, "pt_BR")
    message = again.get(first.id + " Edited.", context=first.context)
    assert message.fuzzy and message.string == "Tradução" and message.previous_id == [first.id]


def test_the_built_edition_says_which_lesson_and_language_it_is():
    nb = course_i18n.translated(source("lesson1_requires_grad"), course_i18n.new_catalog("x"), "lesson1_requires_grad")
    assert nb["metadata"]["autograd_course"] == {"lesson": "lesson1_requires_grad", "language": "pt_BR"}
    assert [c["id"] for c in nb["cells"]] == [c["id"] for c in source("lesson1_requires_grad")["cells"]]
