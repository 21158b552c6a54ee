"""The graded class the tests of export, publish and the LMS's files share, defined once: nbgrader takes
seconds to make a gradebook, so the class is made once per run and each test grades a copy of its own."""

import shutil

import pytest

from tests.unit.autograder.grading.gradebook_class import make_class

PEOPLE = {"ada": ("Ada", "Lovelace", "ada@uni.example"), "bob": ("Bob", "=Tables", "bob@uni.example"),
          "cy": ("Cy", "Young", None), "dee": ("Dee", "Dee", "dee@uni.example")}  # fmt: skip


@pytest.fixture(scope="session")
def graded_class(tmp_path_factory) -> str:
    """ada 7, bob 10, cy 4 (no email), dee no submission, out of 10; bob's last name starts a formula."""
    return make_class(str(tmp_path_factory.mktemp("class") / "course"), {"ada": 7, "bob": 10, "cy": 4, "dee": None},
                      people=PEOPLE)  # fmt: skip


@pytest.fixture
def graded_course(graded_class, tmp_path, monkeypatch) -> str:
    """A copy of the graded class of its own, with the course's nbgrader_config.py and a SQLite gradebook."""
    monkeypatch.delenv("AUTOGRADER_DB_URL", raising=False)
    return shutil.copytree(graded_class, str(tmp_path / "course"))
