"""The README's author guide documents every exercise the grader serves."""

import os
import re

from autograder.exercises import EXERCISES
from tests.conftest import ASSIGNMENTS, ROOT

README = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()


def test_every_exercise_has_its_signature_in_the_readme():
    for name in EXERCISES:
        assert re.search(rf"`{name}\(", README), f"{name}: signature missing from README.md"


def test_every_assignment_is_listed_in_the_readme():
    for assignment in ASSIGNMENTS:
        assert f"`{assignment}`" in README
