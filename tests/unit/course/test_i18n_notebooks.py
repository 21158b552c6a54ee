"""course_i18n's units of a lesson: what a translator sees, and the notebook put back from their work.

Nothing here runs a notebook: the extractor and the builder are checked against the English sources
themselves (an identity catalogue must give them back byte for byte, a pseudo one must reach every
paragraph, comment and printed string and leave solutions, hidden tests and code alone)."""

import ast
import copy
import json
import os
import re
import shutil

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


def code_cell(source: str) -> dict:
    return {"cell_type": "code", "id": "c1", "metadata": {}, "source": source, "outputs": [], "execution_count": None}


def test_a_form_feed_in_a_string_does_not_shift_what_comes_after_it():
    cell = code_cell('s = "a\x0cb"\nprint("Hello world")  # say hi there\n')
    built = text(course_i18n.translated_cell(cell, pseudo))
    assert built == 's = "a\x0cb"\nprint("⟦Hello world⟧")  # ⟦say hi there⟧\n'


def test_a_translation_on_several_lines_keeps_every_line_a_comment():
    cell = code_cell("# set the value here\nx = 1  # and this one\n    # indented too\n")

    def two_lines(_context, english):
        return f"{english} (1)\n{english} (2)"

    built = text(course_i18n.translated_cell(cell, two_lines))
    assert built == (
        "# set the value here (1)\n# set the value here (2)\n"
        "x = 1  # and this one (1) and this one (2)\n"  # after code: one line, or the code would break
        "    # indented too (1)\n    # indented too (2)\n"
    )
    ast.parse(built)


def test_an_english_cell_the_extractor_cannot_read_is_reported(tmp_path):
    nb = source("lesson1_requires_grad")
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code" and not course_i18n.skipped(c))
    cell["source"] = 'def f():\n    """a docstring line\n%s here"""\n'  # a magic-looking line inside a string
    (tmp_path / "notebooks" / "lesson1_requires_grad").mkdir(parents=True)
    with open(tmp_path / "notebooks" / "lesson1_requires_grad" / "lesson1_requires_grad.ipynb", "w") as f:
        json.dump(nb, f)
    shutil.copytree(os.path.join(ROOT, "locale"), tmp_path / "locale")
    found = course_i18n.problems("lesson1_requires_grad", root=str(tmp_path))
    assert any("cannot be read for translation" in line for line in found), found


def test_a_new_entry_under_a_shared_context_gets_no_live_neighbours_translation():
    template = course_i18n.new_catalog("autograder")
    template.add("student", context="report column")
    done = course_i18n.updated(template, None, "pt_BR")
    done.get("student", context="report column").string = "aluno"
    template.add("exercise", context="report column")
    again = course_i18n.updated(template, done, "pt_BR")
    assert not again.get("exercise", context="report column").string
    assert again.get("student", context="report column").string == "aluno"
