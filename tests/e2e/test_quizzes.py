"""The quick checks do not give their answers away: the right option is not the longest one, the key
letters are spread, and the key in gradebox/quizzes/<id>.json is the source notebook's answer."""

import collections
import json
import os
import re

import pytest

from autograder.checks import _answer_hash, load_quiz
from autograder.i18n import edition_of
from tests.conftest import ASSIGNMENTS, LESSONS, ROOT

OPTION = re.compile(r"^- ([a-d])\) (.+)$", re.M)
ANSWER = re.compile(r'^q(\d+) = "([a-d])"$', re.M)


def questions(assignment: str) -> list[dict]:
    """Each question's options and key, read from the source notebook."""
    with open(os.path.join(ROOT, "notebooks", assignment, f"{assignment}.ipynb"), encoding="utf-8") as f:
        cells = json.load(f)["cells"]
    found, options = [], None
    for cell in cells:
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and re.match(r"\*\*(Question|Pergunta) \d+\.\*\*", text.lstrip()):
            options = dict(OPTION.findall(text))
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
        if re.fullmatch(r"quiz_q\d+", grade_id):
            number, key = ANSWER.search(text).groups()
            assert f"quiz_q{number}" == grade_id and options, f"{assignment} {grade_id}: no question text before it"
            found.append({"id": f"q{number}", "key": key, "options": options})
            options = None
    return found


def strictly_longest(question: dict) -> bool:
    lengths = {letter: len(text.strip()) for letter, text in question["options"].items()}
    right = lengths.pop(question["key"])
    return right > max(lengths.values())


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_four_options_and_key_matches(assignment):
    assignment_key = edition_of(assignment)[0]  # an edition asks its English lesson's questions
    quiz = load_quiz(assignment_key)
    found = questions(assignment)
    assert [q["id"] for q in found] == [f"q{i}" for i in range(1, len(found) + 1)] == list(quiz)
    for q in found:
        assert sorted(q["options"]) == ["a", "b", "c", "d"], q["id"]
        assert quiz[q["id"]]["answer_sha256"] == _answer_hash(assignment_key, q["id"], q["key"]), q["id"]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_longest_is_right_at_most_once(assignment):
    longest = [q["id"] for q in questions(assignment) if strictly_longest(q)]
    assert len(longest) <= 1, f"the right option is the longest in {longest}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_key_letters_are_spread(assignment):
    keys = [q["key"] for q in questions(assignment)]
    letter, count = collections.Counter(keys).most_common(1)[0]
    assert count <= len(keys) / 2, f"{letter} is the key of {count} of {len(keys)} questions"
    assert not re.search(r"(.)\1\1", "".join(keys)), keys


@pytest.mark.parametrize("edition", ["", "_pt_br"])
def test_course_keys_balanced(edition):
    found = [q for lesson in LESSONS for q in questions(lesson + edition)]
    assert {q["key"] for q in found} == {"a", "b", "c", "d"}
    assert sum(strictly_longest(q) for q in found) <= len(found) // 4
