"""`python3 course.py sync`: one repository setting behind every badge and every Colab install cell."""

import importlib.util
import json
import os
import shutil

import pytest

from tests.conftest import ASSIGNMENTS, ROOT

GITHUB = "https://github.com/someone/grad-course"


def load_course(root: str = ROOT):
    spec = importlib.util.spec_from_file_location("course_script", os.path.join(root, "course.py"))
    course = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(course)
    return course


course = load_course()


def source_notebook(assignment: str, folder: str = "notebooks") -> dict:
    with open(os.path.join(ROOT, folder, assignment, f"{assignment}.ipynb"), encoding="utf-8") as f:
        return json.load(f)


def text(cell: dict) -> str:
    return "".join(cell["source"])


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_lesson_cells_from_setting(assignment):
    where = course.settings()
    nb = source_notebook(assignment)
    assert course.synced_notebook(nb, where["repository"], where["branch"], assignment) == nb, (
        f"notebooks/{assignment} is out of step with [tool.autograd-course]: run `python3 course.py sync`"
    )


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_student_notebook_cell_order(assignment):
    cells = source_notebook(assignment, "release")["cells"]
    assert [cells[0]["id"], cells[2]["id"]] == ["badges", "install"]
    assert text(cells[1]).startswith("# Lesson")
    where = course.settings()
    assert course.install_spec(where["repository"], where["branch"]) in text(cells[2])
    assert f"release/{assignment}/{assignment}.ipynb" in text(cells[0])


def test_readme_badges_from_setting():
    where = course.settings()
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    assert course.readme_block(where["repository"], where["branch"]) in readme, "run `python3 course.py sync`"


def test_github_gets_colab_and_binder():
    markdown = course.badges_markdown(GITHUB, "main", "lesson3_zeroing_grad")
    colab = "https://colab.research.google.com/github/someone/grad-course/blob/main/release/lesson3_zeroing_grad/lesson3_zeroing_grad.ipynb"
    binder = (
        "https://mybinder.org/v2/gh/someone/grad-course/main"
        "?urlpath=lab%2Ftree%2Frelease%2Flesson3_zeroing_grad%2Flesson3_zeroing_grad.ipynb"
    )
    assert f"[![Open In Colab]({course.COLAB_BADGE})]({colab})" in markdown
    assert f"[![Launch Binder]({course.BINDER_BADGE})]({binder})" in markdown


def test_non_github_gets_binder_only():
    """A repository elsewhere gets a Binder badge only; a local copy gets no badge."""
    elsewhere = course.badges_markdown("https://gitlab.com/someone/grad-course", "dev", "lesson1_requires_grad")
    assert "Colab" not in elsewhere
    assert "https://mybinder.org/v2/git/https%3A%2F%2Fgitlab.com%2Fsomeone%2Fgrad-course/dev?urlpath=" in elsewhere
    local = course.badges_markdown("file:///srv/course", "main", "lesson1_requires_grad")
    assert "mybinder" not in local and "colab.research" not in local and "file:///srv/course" in local


def test_install_cell_only_if_missing():
    source = course.install_cell_source("file:///srv/course", "main")
    assert '%pip install --quiet "git+file:///srv/course@main"' in source
    assert 'find_spec("gradlessons") is None or importlib.util.find_spec("autograder") is None' in source


@pytest.fixture
def course_copy(tmp_path):
    for name in ("course.py", "pyproject.toml", "README.md"):
        shutil.copy(os.path.join(ROOT, name), tmp_path / name)
    shutil.copytree(os.path.join(ROOT, "notebooks"), tmp_path / "notebooks")
    shutil.copy(os.path.join(ROOT, "nbgrader_config.py"), tmp_path)
    # sync writes the code tables of docs/codes.md from autograder/codes.py
    (tmp_path / "autograder").mkdir()
    shutil.copy(os.path.join(ROOT, "autograder", "codes.py"), tmp_path / "autograder" / "codes.py")
    (tmp_path / "docs").mkdir()
    shutil.copy(os.path.join(ROOT, "docs", "codes.md"), tmp_path / "docs" / "codes.md")
    return tmp_path


def set_repository(copy, value: str) -> None:
    pyproject = (copy / "pyproject.toml").read_text()
    (copy / "pyproject.toml").write_text(pyproject.replace(course.settings()["repository"], value))


@pytest.mark.slow
def test_sync_points_all_at_new_repo(course_copy):
    set_repository(course_copy, GITHUB + ".git")
    assert load_course(str(course_copy)).sync([]) == 0
    readme = (course_copy / "README.md").read_text()
    assert readme.count("https://colab.research.google.com/github/someone/grad-course/blob/main/release/") == 4
    assert (course_copy / "docs" / "codes.md").read_text() == open(os.path.join(ROOT, "docs", "codes.md")).read()
    for assignment in ASSIGNMENTS:
        for folder in ("notebooks", "release"):
            with open(course_copy / folder / assignment / f"{assignment}.ipynb", encoding="utf-8") as f:
                cells = json.load(f)["cells"]
            assert f'"git+{GITHUB}@main"' in text(cells[2])  # ".git" is dropped once, in the setting's reader
            assert sum(c.get("id") == "install" for c in cells) == 1  # a second sync does not add another


def test_sync_refuses_unset_pyproject(course_copy):
    pyproject = (course_copy / "pyproject.toml").read_text()
    (course_copy / "pyproject.toml").write_text(pyproject.replace("[tool.autograd-course]", "[tool.other]"))
    before = (course_copy / "notebooks" / ASSIGNMENTS[0] / f"{ASSIGNMENTS[0]}.ipynb").read_bytes()
    with pytest.raises(SystemExit, match=r"\[tool.autograd-course\] with `repository` and `branch`"):
        load_course(str(course_copy)).sync([])
    assert (course_copy / "notebooks" / ASSIGNMENTS[0] / f"{ASSIGNMENTS[0]}.ipynb").read_bytes() == before


def test_sync_refuses_blockless_readme(course_copy):
    readme = (course_copy / "README.md").read_text()
    (course_copy / "README.md").write_text(readme.replace(course.README_END, ""))
    before = (course_copy / "notebooks" / ASSIGNMENTS[0] / f"{ASSIGNMENTS[0]}.ipynb").read_bytes()
    with pytest.raises(SystemExit, match="README.md has no badge block"):
        load_course(str(course_copy)).sync([])
    assert (course_copy / "notebooks" / ASSIGNMENTS[0] / f"{ASSIGNMENTS[0]}.ipynb").read_bytes() == before


def test_sync_refuses_tableless_codes(course_copy):
    (course_copy / "docs" / "codes.md").write_text("# Codes\n\nNo tables here.\n")
    before = (course_copy / "README.md").read_bytes()
    with pytest.raises(SystemExit, match="docs/codes.md has no code table block"):
        load_course(str(course_copy)).sync([])
    assert (course_copy / "README.md").read_bytes() == before
    assert (course_copy / "docs" / "codes.md").read_text() == "# Codes\n\nNo tables here.\n"


def test_code_tables_regenerated():
    text = open(os.path.join(ROOT, "docs", "codes.md"), encoding="utf-8").read()
    drifted = text.replace("| `never_clears` |", "| `never_clears_old` |", 1)
    assert drifted != text and course.codes_blocks(drifted) == text


def test_readme_lengths_from_notebooks():
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    assert course.length_block() in readme, "run `python3 course.py sync`"


def test_lesson_splits_by_headings():
    def md(text):
        return {"cell_type": "markdown", "source": [text], "metadata": {}}

    def code(text):
        return {"cell_type": "code", "source": [text], "metadata": {}, "outputs": []}

    nb = {
        "cells": [
            {"cell_type": "markdown", "id": "badges", "source": ["[badge]"], "metadata": {}},
            md("# Lesson 9 · Title words"),
            md("## 1. Core part\nfour more words here"),
            code("x = 1"),
            code("GradExplorer()"),
            md("## 2. Exercises"),
            code("def f(): pass"),
            md("## Going deeper (optional): more"),
            code("y = 2"),
        ]
    }
    parts = course._sections(nb)
    assert [len(parts[k]) for k in ("core", "exercises", "deeper")] == [4, 2, 2]
    core = course._length(parts["core"])
    assert (core["cells"], core["words"], core["code_lines"], core["explorers"]) == (4, 11, 2, 1)


def test_lesson_minutes_from_rates():
    """Words at 150 a minute, code at 12 lines a minute, 45 s a question."""

    def md(text):
        return {"cell_type": "markdown", "source": [text], "metadata": {}}

    def code(text):
        return {"cell_type": "code", "source": [text], "metadata": {}, "outputs": []}

    prose = " ".join(["word"] * 300)  # 2 minutes of reading
    cells = [
        md(prose),
        code("\n".join(f"x{i} = {i}" for i in range(18)) + "\n\n\n"),  # 18 lines: blank ones are not read
        code("# a comment is read too\nGradExplorer()\n"),  # 2 lines and an explorer (3 minutes)
        md("**Question 1.** Which one?"),
        code("### BEGIN SOLUTION\nanswer = 'b'\nmore = 1\n### END SOLUTION\n"),  # the one line to replace
        md("**Question 2.** And now?"),
        code("answer = 'c'\n### BEGIN HIDDEN TESTS\nassert answer\n### END HIDDEN TESTS\n"),  # hidden: unread
    ]
    length = course._length(cells)
    assert (length["code_lines"], length["questions"], length["explorers"]) == (18 + 2 + 1 + 1, 2, 1)
    words = 300 + 4 + 4
    expected = words / 150 + 22 / 12 + 2 * 45 / 60 + 3
    assert length["exact_minutes"] == pytest.approx(expected)
    assert length["minutes"] == round(expected) == 8


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_core_paths_fit_their_minutes(assignment):
    core = course.lesson_stats(assignment)["core"]
    assert core["exact_minutes"] <= course.CORE_PATH_MINUTES, (
        f"{assignment}'s core path takes {core['exact_minutes']:.1f} minutes by `course.py stats`: "
        "move detail to Going deeper or into a gradlessons helper"
    )


def test_questions_need_bold_labels():
    text = "The **Question 1.** label in the middle of a paragraph is not a question."
    cells = [{"cell_type": "markdown", "source": [text], "metadata": {}}]
    assert course._length(cells)["questions"] == 0
