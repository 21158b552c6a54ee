"""`python3 course.py sync`: one repository setting behind every badge and every Colab install cell."""

import importlib.util
import json
import os
import shutil
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

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
    assert course.synced_notebook(nb, where["student_repository"], where["student_branch"], assignment) == nb, (
        f"notebooks/{assignment} is out of step with [tool.autograd-course]: run `python3 course.py sync`"
    )


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_student_notebook_cell_order(assignment):
    cells = source_notebook(assignment, "release")["cells"]
    assert [cells[0]["id"], cells[2]["id"]] == ["badges", "install"]
    assert text(cells[1]).startswith("# Aula" if assignment.endswith("_pt_br") else "# Lesson")
    where = course.settings()
    assert course.install_spec(where["student_repository"], where["student_branch"]) in text(cells[2])
    assert f"release/{assignment}/{assignment}.ipynb" in text(cells[0])


def test_readme_badges_from_setting():
    where = course.settings()
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    block = course.readme_block(where["student_repository"], where["student_branch"])
    assert block in readme, "run `python3 course.py sync`"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_no_badge_or_install_cell_opens_the_sources(assignment):
    """The sources hold every solution and hidden test: students open the student edition only."""
    where = course.settings()
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    sources, path = (where["repository"], where["branch"]), course.release_path(assignment)
    for folder in ("notebooks", "release"):
        cells = {c.get("id"): text(c) for c in source_notebook(assignment, folder)["cells"]}
        for url in (course.colab_url(*sources, path), course.binder_url(*sources, path)):
            assert url and url not in cells["badges"] and url not in readme
        assert course.install_spec(where["repository"], where["branch"]) not in cells["install"]


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
    for name in ("course.py", "course_i18n.py", "pyproject.toml", "requirements.txt", "README.md"):
        shutil.copy(os.path.join(ROOT, name), tmp_path / name)
    shutil.copytree(os.path.join(ROOT, "notebooks"), tmp_path / "notebooks")
    shutil.copy(os.path.join(ROOT, "nbgrader_config.py"), tmp_path)
    # sync writes the code tables of docs/codes.md from autograder/codes.py and the settings tables of
    # docs/instructor.md from autograder/settings.py, and builds the editions from the catalogues (locale/)
    # and the packages' messages
    shutil.copytree(os.path.join(ROOT, "locale"), tmp_path / "locale")
    for package in ("autograder", "gradebox", "gradexercises", "gradlessons"):
        shutil.copytree(os.path.join(ROOT, package), tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "docs").mkdir()
    shutil.copy(os.path.join(ROOT, "docs", "codes.md"), tmp_path / "docs" / "codes.md")
    shutil.copy(os.path.join(ROOT, "docs", "instructor.md"), tmp_path / "docs" / "instructor.md")
    return tmp_path


def set_repository(copy, value: str) -> None:
    pyproject = (copy / "pyproject.toml").read_text()
    (copy / "pyproject.toml").write_text(pyproject.replace(course.settings()["repository"], value))


@pytest.mark.slow
def test_sync_points_all_at_new_repo(course_copy):
    set_repository(course_copy, GITHUB + ".git")
    assert load_course(str(course_copy)).sync([]) == 0
    readme = (course_copy / "README.md").read_text()
    branch = course.settings()["student_branch"]
    assert readme.count(f"https://colab.research.google.com/github/someone/grad-course/blob/{branch}/release/") == len(
        ASSIGNMENTS
    )
    assert (course_copy / "docs" / "codes.md").read_text() == open(os.path.join(ROOT, "docs", "codes.md")).read()
    instructor = open(os.path.join(ROOT, "docs", "instructor.md")).read()
    assert (course_copy / "docs" / "instructor.md").read_text() == instructor
    for assignment in ASSIGNMENTS:
        for folder in ("notebooks", "release"):
            with open(course_copy / folder / assignment / f"{assignment}.ipynb", encoding="utf-8") as f:
                cells = json.load(f)["cells"]
            assert f'"git+{GITHUB}@{branch}"' in text(cells[2])  # ".git" is dropped once, in the setting's reader
            assert sum(c.get("id") == "install" for c in cells) == 1  # a second sync does not add another


def test_sync_refuses_unset_pyproject(course_copy):
    pyproject = (course_copy / "pyproject.toml").read_text()
    (course_copy / "pyproject.toml").write_text(pyproject.replace("[tool.autograd-course]", "[tool.other]"))
    before = (course_copy / "notebooks" / ASSIGNMENTS[0] / f"{ASSIGNMENTS[0]}.ipynb").read_bytes()
    with pytest.raises(SystemExit, match=r"\[tool.autograd-course\] with `repository`, `branch`, `student_repository`"):
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


def test_sync_writes_the_settings_tables_and_refuses_a_page_without_them(course_copy):
    page = course_copy / "docs" / "instructor.md"
    written = page.read_text()
    stale = written.replace("| `AUTOGRADER_HUB_PORT` | `8000` |", "| `AUTOGRADER_HUB_PORT` | `80` |")
    assert stale != written and load_course(str(course_copy)).settings_blocks(stale) == written
    page.write_text("# Instructor's guide\n\nNo tables here.\n")
    before = (course_copy / "README.md").read_bytes()
    with pytest.raises(SystemExit, match="docs/instructor.md has no settings table block"):
        load_course(str(course_copy)).sync([])
    assert (course_copy / "README.md").read_bytes() == before


def test_sync_refuses_an_unknown_option_before_writing(course_copy):
    before = (course_copy / "README.md").read_bytes()
    with pytest.raises(SystemExit, match="sync takes no '--rerrun'; its one option is --rerun"):
        load_course(str(course_copy)).sync(["--rerrun"])
    assert (course_copy / "README.md").read_bytes() == before


# ---- a lesson's run, kept between syncs ----


def test_a_run_key_ignores_the_cells_sync_writes_and_follows_every_other():
    nb = source_notebook(ASSIGNMENTS[0])
    key = course.run_key(nb)
    rewritten = json.loads(json.dumps(nb))
    for cell in rewritten["cells"]:
        if cell.get("id") in course.HANDED_OUT:
            cell["source"] = "written again by another sync, for another repository"
    assert course.run_key(rewritten) == key
    edited = json.loads(json.dumps(nb))
    edited["cells"][-1]["source"] = "".join(edited["cells"][-1]["source"]) + "\n"  # one newline more
    assert course.run_key(edited) != key


def test_a_run_key_follows_the_course_packages_and_pins(course_copy):
    nb = source_notebook(ASSIGNMENTS[0])
    copy = load_course(str(course_copy))
    key = copy.run_key(nb)
    assert key == course.run_key(nb), "every copy of the same course has the same key"
    with open(course_copy / "gradlessons" / "__init__.py", "a") as f:
        f.write("# a helper a lesson imports, changed\n")
    assert copy.run_key(nb) != key
    changed = copy.run_key(nb)
    (course_copy / "requirements.txt").write_text((course_copy / "requirements.txt").read_text() + "tqdm==4.0.0\n")
    assert copy.run_key(nb) != changed
    changed = copy.run_key(nb)
    set_repository(course_copy, GITHUB + ".git")  # every badge changes, not what a lesson's run shows
    assert copy.run_key(nb) == changed
    pyproject = (course_copy / "pyproject.toml").read_text()
    (course_copy / "pyproject.toml").write_text(pyproject.replace("dependencies = [", 'dependencies = [\n  "tqdm",', 1))
    assert copy.run_key(nb) != changed


def _lesson_file(tmp_path) -> str:
    path = tmp_path / "lesson.ipynb"
    path.write_text(json.dumps(source_notebook(ASSIGNMENTS[0])))
    return str(path)


class _Runs:
    """Stands in for the kernel that runs a lesson: counts the runs and prints what MEASURE prints."""

    def __init__(self):
        self.count = 0

    def __call__(self, command, **kwargs):
        self.count += 1
        found = {"executed": {"cells": [], "run": self.count}, "guides": {}}
        return subprocess.CompletedProcess(command, 0, json.dumps(found), "")


def test_a_kept_run_is_used_again_without_a_kernel(tmp_path, monkeypatch):
    runs = _Runs()
    monkeypatch.setattr(course, "RUNS_CACHE", str(tmp_path / "runs"))
    monkeypatch.setattr(course.subprocess, "run", runs)
    path = _lesson_file(tmp_path)
    first = course.run_lesson(path)
    assert course.run_lesson(path) == first and runs.count == 1
    assert course.run_lesson(path, fresh=True)["executed"]["run"] == 2  # --rerun runs it, and keeps that run
    assert course.run_lesson(path)["executed"]["run"] == 2 and runs.count == 2
    assert os.listdir(tmp_path / "runs") == [course.run_key(json.loads(open(path).read())) + ".json"]


def test_two_processes_that_need_the_same_run_at_once_run_the_lesson_once(tmp_path, monkeypatch):
    """A sync and the suite's lesson tests (or two syncs) asking at the same time: the second waits for
    the first's run and reads what it kept.  Threads stand in for the processes: each opens the lock
    file itself, and the lock is on the open file, not the process."""
    runs, running = _Runs(), threading.Event()

    def slow_run(command, **kwargs):
        running.set()
        time.sleep(0.5)  # the second asks while the first's run is under way, before it is kept
        return runs(command, **kwargs)

    monkeypatch.setattr(course, "RUNS_CACHE", str(tmp_path / "runs"))
    monkeypatch.setattr(course.subprocess, "run", slow_run)
    path = _lesson_file(tmp_path)
    with ThreadPoolExecutor(max_workers=2) as both:
        first = both.submit(course.run_lesson, path)
        assert running.wait(timeout=30)
        second = both.submit(course.run_lesson, path)
        found = [first.result(), second.result()]
    assert runs.count == 1 and found[0] == found[1]


def test_a_damaged_kept_run_is_run_again_and_replaced(tmp_path, monkeypatch):
    runs = _Runs()
    monkeypatch.setattr(course, "RUNS_CACHE", str(tmp_path / "runs"))
    monkeypatch.setattr(course.subprocess, "run", runs)
    path = _lesson_file(tmp_path)
    course.run_lesson(path)
    [kept] = (tmp_path / "runs").iterdir()
    kept.write_text('{"executed": ')  # cut short
    assert course.run_lesson(path)["executed"]["run"] == 2
    assert json.loads(kept.read_text())["executed"]["run"] == 2


def test_a_home_without_a_cache_still_runs_the_lesson(tmp_path, monkeypatch):
    runs = _Runs()
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    monkeypatch.setattr(course, "RUNS_CACHE", str(blocked / "runs"))
    monkeypatch.setattr(course.subprocess, "run", runs)
    path = _lesson_file(tmp_path)
    assert course.run_lesson(path)["executed"]["run"] == 1
    assert course.run_lesson(path)["executed"]["run"] == 2  # nothing kept: run again


def test_code_tables_regenerated():
    text = open(os.path.join(ROOT, "docs", "codes.md"), encoding="utf-8").read()
    drifted = text.replace("| `never_clears` |", "| `never_clears_old` |", 1)
    assert drifted != text and course.codes_blocks(drifted) == text


def md(text: str) -> dict:
    return {"cell_type": "markdown", "source": [text], "metadata": {}}


def code(text: str, *outputs: dict) -> dict:
    return {"cell_type": "code", "source": [text], "metadata": {}, "outputs": list(outputs)}


def stdout(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


PNG = {"output_type": "display_data", "data": {"image/png": "", "text/plain": "<Figure>"}, "metadata": {}}
WIDGET = {"output_type": "display_data", "data": {"application/vnd.jupyter.widget-view+json": {}, "text/plain": "x"}}


def test_lesson_splits_by_headings():
    nb = {
        "cells": [
            {"cell_type": "markdown", "id": "badges", "source": ["[badge]"], "metadata": {}},
            md("# Lesson 9 · Title words"),
            {"cell_type": "markdown", "id": "time", "source": ["**Time.** About 3 minutes"], "metadata": {}},
            md("## 1. Core part\nfour more words here"),
            code("x = 1"),
            code("from gradlessons.tangent_explorer import TangentExplorer\nTangentExplorer()"),
            md("## 2. Exercises"),
            code("def f(): pass"),
            md("## Going deeper (optional): more"),
            code("y = 2"),
        ]
    }
    parts = course._sections(nb)
    assert [len(parts[k]) for k in ("core", "exercises", "deeper")] == [4, 2, 2]  # the time cell is not read
    core = course.account(parts["core"], [], {"TangentExplorer": ["Drag the slider to x = 0.", "Pick sin x."]})
    assert (core["words"], core["code_cells"], core["code_lines"]) == (11, 2, 3)
    assert (core["explorers"], core["guide_steps"], core["guide_words"]) == (1, 2, 9)


def test_account_counts_what_a_beginner_does():
    """Every activity at its stated rate: text, code read and run, what cells print and draw, quick-check
    questions with their answers, and the explorer's guide steps."""
    prose = " ".join(["word"] * 240)  # 2 minutes of reading
    cells = [
        md(prose),
        code("\n".join(f"x{i} = {i}" for i in range(18)) + "\n\n\n", stdout("one\ntwo\n"), PNG),  # 18 lines read
        code("from gradlessons.graph_explorer import GraphExplorer\nGraphExplorer()\n", WIDGET),  # not a printed line
        md("**Question 1.** Which one?"),
        code("### BEGIN SOLUTION\nanswer = 'b'\nmore = 1\n### END SOLUTION\n"),  # the one line to replace
        code("check()", stdout("✅ q1: right.\n")),
        md("**Question 2.** And now?"),
        code("answer = 'c'\n### BEGIN HIDDEN TESTS\nassert answer\n### END HIDDEN TESTS\n"),  # hidden: unread
    ]
    done = course.account(cells, [30, 60, 99], {"GraphExplorer": ["Tick a.", "Click apply."]})
    assert (done["code_cells"], done["code_lines"], done["output_lines"], done["figures"]) == (
        5,
        18 + 2 + 1 + 1 + 1,
        3,
        1,
    )
    assert (done["questions"], done["feedback_words"], done["guide_steps"], done["guide_words"]) == (2, 90, 2, 4)
    words = 240 + 4 + 4
    expected = (
        (words + 90 + 4) / 120 * 60
        + 23 * course.SECONDS_PER_CODE_LINE + 5 * course.SECONDS_PER_RUN
        + 3 * course.SECONDS_PER_OUTPUT_LINE + course.SECONDS_PER_FIGURE
        + 2 * course.SECONDS_PER_QUESTION
        + course.SECONDS_PER_EXPLORER + 2 * course.SECONDS_PER_GUIDE_STEP
    )  # fmt: skip
    assert sum(done["seconds"].values()) == pytest.approx(expected)
    assert done["minutes"] == round(expected / 60)


def test_line_sent_in_two_pieces_counts_once():
    pieces = code("print(a, b)", stdout("w.grad: tensor([1.]) | its"), stdout(" shape: [1]\nx.grad: None\n"))
    assert course.printed(pieces) == (2, 0)


def test_errors_count_one_line():
    error = {"output_type": "error", "ename": "RuntimeError", "evalue": "x", "traceback": ["a", "b", "c"]}
    result = {"output_type": "execute_result", "data": {"text/plain": "tensor([1.,\n 2.])"}, "metadata": {}}
    assert course.printed(code("f()", error, result)) == (3, 0)


def test_figures_in_output_widgets_count():
    """draw_graph shows its picture in an ipywidgets.Output: the notebook keeps it in the widget state."""
    view = {"output_type": "display_data", "data": {course.WIDGET_VIEW: {"model_id": "m1"}, "text/plain": "Output()"}}
    widgets = {"m1": {"model_name": "OutputModel", "state": {"outputs": [PNG, stdout("4 nodes\n")]}}}
    assert course.printed(code("draw_graph(loss)", view), widgets) == (1, 1)
    assert course.printed(code("draw_graph(loss)", view)) == (0, 0)  # no saved state: nothing to read
    explorer = code("from gradlessons.graph_explorer import GraphExplorer\nGraphExplorer()", view)
    assert course.account([explorer], [], {}, widgets)["figures"] == 0  # an explorer counts as its guide


def test_time_cell_says_what_it_counts():
    nb = {"cells": [md("# Lesson 9"), md("## 1. One"), md("## 2. Two"), md("## 3. Exercises"),
                    code("### BEGIN SOLUTION\nx = 1\n### END SOLUTION")]}  # fmt: skip
    time = {part: course.account(course._sections(nb)[part], [], {}) for part in ("core", "exercises", "deeper")}
    told = course.time_text(nb, time)
    assert told.startswith("**Time.** About **1 minute** for the core path (sections 1–2)")
    assert "reading 6 words of text" in told and told.endswith("write 1 function.")  # no Going deeper: not named
    synced = course.synced_notebook(nb, GITHUB, "main", "lesson9", time)
    assert [c.get("id") for c in synced["cells"][:4]] == ["badges", None, "install", "time"]
    again = course.synced_notebook(synced, GITHUB, "main", "lesson9", time)
    assert again == synced  # one time cell, replaced in place
    assert course.synced_notebook(synced, GITHUB, "main", "lesson9") == synced  # no account: kept as it is


def test_questions_need_bold_labels():
    text = "The **Question 1.** label in the middle of a paragraph is not a question."
    assert course.account([md(text)], [], {})["questions"] == 0


def test_question_in_going_deeper_reads_its_own_answer(tmp_path, monkeypatch):
    quiz = {"q1": {"why": "one two"}, "q2": {"why": "three four five six"}}
    (tmp_path / "gradebox" / "quizzes").mkdir(parents=True)
    (tmp_path / "gradebox" / "quizzes" / "lesson9.json").write_text(json.dumps(quiz))
    monkeypatch.setattr(course, "ROOT", str(tmp_path))
    nb = {"cells": [md("# Lesson 9"), md("**Question 1.** A?"), md("## 2. Exercises"),
                    md("## Going deeper (optional): more"), md("**Question 2.** B?")]}  # fmt: skip
    time = course.lesson_time("lesson9", nb, {})
    assert (time["core"]["feedback_words"], time["deeper"]["feedback_words"]) == (2, 4)
