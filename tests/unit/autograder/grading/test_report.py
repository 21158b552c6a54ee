"""The class report adds up (no grading): a class of a correct answer, a never-clearing loop, a syntax
error and a blank notebook, as build_report reads them from the graded notebooks; its counts sum with
their rows, its scores carry their maximum, every code it names is explained, every answer not judged
has its reason in the CSV, and the students come in the order of their ids."""

import csv
import re

import pytest

from autograder import codes
from autograder.grading.report import ClassReport, write_csv, write_html
from tests.unit.autograder.conftest import SYNTAX


def test_teach_next_counts_the_answers_not_judged_apart(class_of_four):
    [(exercise, missed, unjudged, graded, mistakes), *_] = class_of_four.teach_next()
    assert (exercise, missed, unjudged, graded) == ("train_step", 3, 2, 4)
    assert sum(len(m.students) for m in mistakes) == missed - unjudged  # the rows add up to the heading
    assert [(s, e, c) for s, e, c, _ in class_of_four.not_judged()] == [
        ("carl", "train_step", "error"), ("erin", "train_step", "unanswered")]  # fmt: skip


def test_the_page_says_of_which_not_judged_and_the_maximum_score(class_of_four, tmp_path):
    path = tmp_path / "report.html"
    write_html(class_of_four, str(path))
    page = path.read_text(encoding="utf-8")
    heading = re.search(r"<h3><code>train_step</code>:(.*?)</h3>", page)[1]
    assert "3 of 4 did not pass, of which 2" in heading and "not judged" in heading
    assert "The other 2 did not pass without being judged" in page
    assert "mean score 5.25 of 9." in page
    assert "<summary>1</summary>bob" in page  # the one misconception row


def test_a_code_named_in_a_meaning_is_explained_beside_it(class_of_four, tmp_path):
    path = tmp_path / "report.html"
    write_html(class_of_four, str(path))
    row = re.search(r"never_clears.*?</tr>", path.read_text(encoding="utf-8"), re.S)[0]
    assert "<code>clears_once</code> means: clears once before the loop" in row


@pytest.mark.parametrize("exercise", sorted(codes.MEANINGS))
def test_every_code_a_meaning_names_is_explained(exercise):
    for code in codes.MEANINGS[exercise]:
        words = codes.explained(exercise, code)
        for named in codes.named_codes(exercise, codes.meaning(exercise, code), code):
            assert f"`{named}` means: {codes.meaning(exercise, named)}" in words, (exercise, code, named)


def test_the_csv_gives_a_reason_for_every_answer_not_judged(class_of_four, tmp_path):
    path = tmp_path / "report.csv"
    write_csv(class_of_four, str(path))
    with open(path, newline="", encoding="utf-8") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert rows["carl"]["train_step"] == "error" and rows["carl"]["reason"] == f"train_step: {SYNTAX}"
    assert rows["erin"]["reason"] == f"train_step: {codes.meaning('train_step', 'unanswered')}"
    assert rows["frank"]["reason"].startswith("Untitled.ipynb")
    assert rows["alice"]["reason"] == rows["bob"]["reason"] == ""  # judged: nothing to explain


def test_students_are_listed_by_id_in_the_csv(class_of_four, tmp_path):
    shuffled = ClassReport(class_of_four.assignment, class_of_four.exercises, class_of_four.rows[::-1])
    path = tmp_path / "report.csv"
    write_csv(shuffled, str(path))
    with open(path, newline="", encoding="utf-8") as f:
        assert [row["student"] for row in csv.DictReader(f)] == ["alice", "bob", "carl", "erin", "frank"]


def test_a_quick_checks_right_answer_is_marked_even_when_nobody_chose_it(class_of_four, tmp_path):
    from autograder.grading.report import course_quiz_keys

    keys = course_quiz_keys("lesson3_zeroing_grad")
    assert set(keys) == {"q1", "q2", "q3", "q4", "q5", "q6"} and all(len(k) == 1 for k in keys.values())
    class_of_four.quiz_keys = keys
    wrong = next(c for c in "abcd" if c != keys["q1"])
    for row in class_of_four.graded():
        row.quiz["q1"] = wrong
    assert class_of_four.quiz_counts("q1") == sorted([(wrong, 4), (keys["q1"], 0)])
    page = tmp_path / "report.html"
    write_html(class_of_four, str(page))
    assert f">{keys['q1']} ✓: 0</span>" in page.read_text(encoding="utf-8")
    assert course_quiz_keys("no_such_lesson") == {}
