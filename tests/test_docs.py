"""docs/codes.md documents every exercise, and its code tables are the ones `python3 course.py sync`
writes from autograder/codes.py."""

import importlib.util
import os
import re

from autograder.exercises import EXERCISES
from tests.conftest import ASSIGNMENTS, ROOT

_spec = importlib.util.spec_from_file_location("course_script", os.path.join(ROOT, "course.py"))
course = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(course)
CODES_DOC = os.path.join(ROOT, course.CODES_DOC)


def read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_the_code_tables_in_docs_codes_md_are_made_from_codes_py():
    text = read(CODES_DOC)
    covered = {name for match in course.CODES.finditer(text) for name in match[2].split()}
    assert covered == set(EXERCISES) | {"shared"}, "docs/codes.md needs a code table for every exercise"
    assert course.codes_blocks(text) == text, "run `python3 course.py sync` to write the code tables of docs/codes.md"


def test_every_exercise_has_its_signature_in_docs_codes_md():
    text = read(CODES_DOC)
    for name in EXERCISES:
        assert re.search(rf"`{name}\(", text), f"{name}: signature missing from docs/codes.md"


def test_every_assignment_has_its_section_in_docs_codes_md():
    text = read(CODES_DOC)
    for assignment in ASSIGNMENTS:
        assert f"`{assignment}`" in text
