"""`python3 course.py student-edition`: what students may have, built from a commit of the course, and
nothing else: no source notebook, no solution, no hidden test or its seed, no instructor's file.

The edition of this repository's last commit is built once for the module; the refusals are tried on a
small course of one lesson made in a temporary folder, so that each can be broken on purpose.  The
answers looked for are read here from the source notebooks, independently of course.py's own guard."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ASSIGNMENTS, ROOT
from tests.unit.course.test_course_sync import load_course

course = load_course()
GIT = ["git", "-c", "user.name=course tests", "-c", "user.email=tests@localhost", "-c", "init.defaultBranch=main"]
# Everything a student may have, by top-level name: the allow-list the edition is built from.
STUDENT_TOP = {".gitignore", "README.md", "pyproject.toml", "environment.yml", "postBuild", "lab", "release",
               "autograder", "gradebox", "gradexercises", "gradlessons"}  # fmt: skip


def git(cwd, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def tracked(folder) -> list[str]:
    return sorted(filter(None, git(folder, "ls-files", "-z").split("\0")))


def regions(nb: dict) -> tuple[list[list[str]], list[list[str]], set[str]]:
    """A source notebook's solution regions and hidden-test regions (their non-blank lines, stripped), and
    every other line it shows students."""
    solutions, hidden, public = [], [], set()
    for cell in nb["cells"]:
        text = "".join(cell["source"])
        if cell.get("metadata", {}).get("nbgrader", {}).get("solution") and "BEGIN SOLUTION" not in text:
            solutions.append([line.strip() for line in text.splitlines() if line.strip()])  # a whole-cell answer
            continue
        region = None
        for line in (line.strip() for line in text.splitlines()):
            if "BEGIN SOLUTION" in line or "BEGIN HIDDEN TESTS" in line:
                region = []
                (solutions if "SOLUTION" in line else hidden).append(region)
            elif "END SOLUTION" in line or "END HIDDEN TESTS" in line:
                region = None
            elif line and region is not None:
                region.append(line)
            elif line:
                public.add(line)
    return solutions, hidden, public


def answers() -> tuple[list[list[str]], list[list[str]], set[str]]:
    solutions, hidden, public = [], [], set()
    for assignment in ASSIGNMENTS:
        with open(os.path.join(ROOT, "notebooks", assignment, f"{assignment}.ipynb"), encoding="utf-8") as f:
            s, h, p = regions(json.load(f))
        solutions, hidden, public = solutions + s, hidden + h, public | p
    return solutions, hidden, public


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    """The student edition of this repository's last commit, and what building it returned."""
    out = tmp_path_factory.mktemp("edition") / "student-edition"
    return out, course.build_student_edition(str(out))


def texts(out) -> dict[str, str]:
    """Every file of the edition as text; a notebook as its JSON and then each cell's source and printed
    output as a reader sees them (in the JSON, a line of code is quoted and its quotes escaped)."""
    found = {}
    for name in tracked(out):
        text = (out / name).read_text(encoding="utf-8", errors="replace")
        if name.endswith(".ipynb"):
            cells = json.loads(text)["cells"]
            text += "".join("\n" + "".join(c["source"]) for c in cells)
            outputs = [o for c in cells for o in c.get("outputs", [])]
            text += "".join("\n" + "".join(o.get("text", "")) for o in outputs)
            text += "".join("\n" + "".join(o.get("data", {}).get("text/plain", "")) for o in outputs)
        found[name] = text
    return found


# ---- what is in it ----


def test_holds_only_what_students_may_have(edition):
    out, _ = edition
    licenses = {name for name in course.LICENSES if os.path.isfile(os.path.join(ROOT, name))}
    assert {p.name for p in out.iterdir()} == STUDENT_TOP | licenses | {".git"}
    assert {name.split("/")[0] for name in tracked(out)} == STUDENT_TOP | licenses
    for name in ("notebooks", "tests", "hub", "benchmarks", "docs", ".autograder", "gradebook.db", "course.py",
                 "nbgrader_config.py", "requirements.txt", ".ci"):  # fmt: skip
        assert not (out / name).exists(), f"{name} is the instructor's"


def test_every_release_notebook_is_in_it_as_committed_and_no_source_notebook(edition):
    out, built = edition
    notebooks = [name for name in tracked(out) if name.endswith(".ipynb")]
    assert notebooks == sorted(course.release_path(a) for a in ASSIGNMENTS)
    for assignment in ASSIGNMENTS:
        committed = git(ROOT, "show", f"{built['source']}:{course.release_path(assignment)}")
        assert (out / course.release_path(assignment)).read_text(encoding="utf-8") == committed
        source = git(ROOT, "show", f"{built['source']}:notebooks/{assignment}/{assignment}.ipynb")
        assert source not in texts(out).values()


def test_no_solution_marker_hidden_test_or_hidden_seed_in_any_file(edition):
    out, _ = edition
    _, hidden, _ = answers()
    hidden_lines = {line for region in hidden for line in region}
    seeds = {m for line in hidden_lines for m in re.findall(r"seed\s*=\s*(\d+)", line)}
    assert hidden_lines, "the source notebooks have hidden tests: the check below looks for something"
    for name, text in texts(out).items():
        lines = {line.strip() for line in text.splitlines()}
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
            # The grader names nbgrader's markers (it finds the hidden tests it runs); no line of it is one.
            assert not [line for line in lines if line.lstrip("# ").startswith(marker)], f"{name} has {marker}"
            assert name.split("/")[0] in course.STUDENT_PACKAGES or marker not in text, f"{name} names {marker}"
        assert not lines & hidden_lines, f"{name} holds a hidden test: {sorted(lines & hidden_lines)}"
        # The grader derives each hidden case from the course secret and the seed written in the hidden
        # test, and its docs quote such a seed as an example; nowhere else has a hidden test's seed a place.
        if name.split("/")[0] not in course.STUDENT_PACKAGES:
            found = [s for s in seeds if re.search(rf"seed\s*=\s*{s}\b", text)]
            assert not found, f"{name} names a hidden test's seed: {found}"


def test_no_line_of_an_answer_and_no_answer_copied_into_the_grader(edition):
    """Outside the course's packages, no line of an answer that the lesson does not show anyway.  The
    grader's judge computes the same effects as the answers from each scenario and its hints quote single
    lines of them (`return loss.item()`), so inside the packages no three lines of an answer in a row."""
    out, _ = edition
    solutions, _, public = answers()
    lines_of_answers = {line for region in solutions for line in region} - public
    runs = {tuple(r[i : i + 3]) for r in solutions for i in range(len(r) - 2) if not set(r[i : i + 3]) <= public}
    assert lines_of_answers and runs
    for name, text in texts(out).items():
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if name.split("/")[0] in course.STUDENT_PACKAGES:
            copied = [lines[i : i + 3] for i in range(len(lines) - 2) if tuple(lines[i : i + 3]) in runs]
            assert not copied, f"{name} holds an answer: {copied[0]}"
        else:
            assert not set(lines) & lines_of_answers, f"{name} holds {sorted(set(lines) & lines_of_answers)}"


def test_badges_and_install_cells_open_the_student_edition(edition):
    out, built = edition
    repository, branch = built["student_repository"], built["student_branch"]
    where = course.settings(git(ROOT, "show", f"{built['source']}:pyproject.toml"))
    assert (repository, branch) == (where["student_repository"], where["student_branch"])
    assert (repository, branch) != (where["repository"], where["branch"])
    readme = (out / "README.md").read_text(encoding="utf-8")
    for assignment in ASSIGNMENTS:
        cells = json.loads((out / course.release_path(assignment)).read_text(encoding="utf-8"))["cells"]
        badges, install = ("".join(c["source"]) for c in cells if c.get("id") in ("badges", "install"))
        made = course.badges_markdown(repository, branch, assignment)
        assert badges == course.handed_out_cells(repository, branch, assignment)["badges"] and made in readme
        assert made in badges  # an edition's badge cell also says it is built, and where JupyterLab's language is set
        assert f'%pip install --quiet "git+{repository}@{branch}"' in install


def test_student_readme_is_for_students_and_its_links_resolve(edition):
    out, _ = edition
    readme = (out / "README.md").read_text(encoding="utf-8")
    for word in ("instructor's guide", "nbgrader_config", "notebooks/", "gradebook", "autograder grade", "docs/"):
        assert word not in readme.lower(), word
    assert "## How to hand in" in readme and "## How to run a lesson" in readme
    for target in re.findall(r"\]\(([^)\s]+)\)", readme):
        if not re.match(r"[a-z]+:", target):
            assert (out / target.partition("#")[0]).exists(), f"README.md links to {target}, not in the edition"


def test_binder_lands_on_a_lesson_of_the_edition(edition):
    out, _ = edition
    assert os.access(out / "postBuild", os.X_OK), "repo2docker runs postBuild only when it is executable"
    landing = re.search(r'default_url = "/lab/tree/([^"]+)"', (out / "postBuild").read_text())[1]
    assert (out / landing).is_file() and (out / "lab" / "overrides.json").is_file()
    assert (out / "environment.yml").read_bytes() == open(os.path.join(ROOT, "environment.yml"), "rb").read()


def test_pyproject_installs_the_student_packages_only():
    import tomllib

    pyproject = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    full, student = tomllib.loads(pyproject), tomllib.loads(course.student_pyproject(pyproject))
    assert student["project"] == full["project"] and student["build-system"] == full["build-system"]
    assert student["tool"] == {"setuptools": full["tool"]["setuptools"]}, "no pytest, ruff or course settings"
    assert "Where the course lives" not in course.student_pyproject(pyproject)  # a dropped table's comment goes too
    includes = full["tool"]["setuptools"]["packages"]["find"]["include"]
    assert sorted(name.rstrip("*") for name in includes) == sorted(course.STUDENT_PACKAGES)


def test_packages_import_from_the_tree_and_the_self_check_runs(edition, tmp_path):
    """In a fresh interpreter whose only copy of the course is the edition: every module the lessons
    import, and one self-check of a correct answer, end to end."""
    out, _ = edition
    imported = set()
    for assignment in ASSIGNMENTS:
        nb = json.loads((out / course.release_path(assignment)).read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            source = "".join(cell["source"]) if cell["cell_type"] == "code" else ""
            imported |= set(re.findall(r"^\s*from ((?:gradlessons|autograder)[\w.]*) import", source, re.M))
    assert "autograder.checks" in imported and any(m.startswith("gradlessons.") for m in imported)
    probe = "\n".join([
        "import importlib, sys",
        *(f"importlib.import_module({name!r})" for name in sorted(imported)),
        "from autograder.checks import check",
        "def make_trainable(values):",
        "    import torch",
        "    return torch.as_tensor(values).detach().clone().to(torch.float32).requires_grad_()",
        "check('make_trainable', make_trainable)",
        f"root, tree = {ROOT!r}, {str(out)!r}",
        "ours = [m.__file__ for m in list(sys.modules.values()) if getattr(m, '__file__', None)",
        "        and m.__name__.split('.')[0] in ('autograder', 'gradlessons')]",
        "print('outside:', [f for f in ours if not f.startswith(tree + '/')])",
    ])  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(out)}
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "✅ make_trainable: passed" in done.stdout and "outside: []" in done.stdout, done.stdout


def test_pip_installs_the_edition(edition, tmp_path):
    """What Colab's install cell and Binder's postBuild do: `pip install` of the edition, here with no
    network (no dependencies, the build backend already installed)."""
    out, _ = edition
    source = tmp_path / "clone"  # a clone, as pip's git+ URL would fetch it
    git(tmp_path, "clone", "-q", str(out), str(source))
    target = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-compile",
           "--disable-pip-version-check", "--target", str(target), str(source)]  # fmt: skip
    done = subprocess.run(pip, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    shipped = {name for name in tracked(out) if name.split("/")[0] in course.STUDENT_PACKAGES}
    installed = {str(p.relative_to(target)) for p in target.rglob("*") if p.is_file() and p.parts[-2] != "__pycache__"}
    assert shipped <= installed, f"not installed: {sorted(shipped - installed)[:5]}"


def test_is_a_git_repository_with_one_commit_naming_the_source(edition):
    out, built = edition
    log = git(out, "log", "--format=%H %s").splitlines()
    assert log == [f"{built['edition']} {course.EDITION_SUBJECT}{built['source']}"]
    assert git(out, "rev-parse", "--abbrev-ref", "HEAD").strip() == built["student_branch"]
    assert git(out, "status", "--porcelain") == ""


# ---- building again, and refusing ----


def lesson(assignment: str, solution: str, hidden: str) -> dict:
    meta = {"grade": False, "grade_id": "f", "locked": False, "schema_version": 3, "solution": True, "task": False}
    test = {**meta, "grade": True, "grade_id": "test_f", "locked": True, "points": 1, "solution": False}
    return {
        "cells": [
            {"cell_type": "markdown", "id": "title", "metadata": {}, "source": [f"# Lesson 9 · {assignment}"]},
            {"cell_type": "code", "id": "f", "metadata": {"nbgrader": meta}, "outputs": [], "execution_count": None,
             "source": ["def f(x):\n", f"    {solution}\n"]},
            {"cell_type": "code", "id": "test_f", "metadata": {"nbgrader": test}, "outputs": [],
             "execution_count": None, "source": ["assert f(1) == 2\n", hidden]},
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }  # fmt: skip


def write(path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1), encoding="utf-8")


@pytest.fixture
def small_course(tmp_path):
    """A course of one lesson, committed, whose student notebook is what sync and nbgrader make of it."""
    root = tmp_path / "course"
    root.mkdir()
    for name in ("course.py", "pyproject.toml"):
        shutil.copy(os.path.join(ROOT, name), root / name)
    mod = load_course(str(root))
    where = mod.settings()
    answer = "### BEGIN SOLUTION\n    return x + 1\n    ### END SOLUTION"
    hidden = "### BEGIN HIDDEN TESTS\nassert f(41) == 42\n### END HIDDEN TESTS"
    write(root / "notebooks/l9/l9.ipynb", lesson("l9", answer, hidden))
    released = mod.synced_notebook(lesson("l9", "# YOUR CODE HERE\n    raise NotImplementedError()", ""),
                                   where["student_repository"], where["student_branch"], "l9")  # fmt: skip
    write(root / "release/l9/l9.ipynb", released)
    for name, text in (("autograder/__init__.py", ""), ("gradlessons/__init__.py", ""), ("lab/overrides.json", "{}"),
                       ("environment.yml", "name: x\n"), ("postBuild", "#!/bin/bash\n"), ("hub/secret.txt", "x"),
                       ("tests/test_answers.py", "return x + 1\n")):  # fmt: skip
        write(root / name, text)
    (root / "postBuild").chmod(0o755)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a course")
    write(root / "autograder" / "course_secret.py", "SEED = 1234\n")  # not committed: never in an edition
    return root, mod


def commit_all(root, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def test_builds_from_the_commit_not_the_working_tree(small_course, tmp_path):
    root, mod = small_course
    built = mod.build_student_edition(str(tmp_path / "out"))
    files = tracked(tmp_path / "out")
    assert "release/l9/l9.ipynb" in files and "autograder/__init__.py" in files
    assert "autograder/course_secret.py" not in files and not any(f.startswith(("hub/", "tests/")) for f in files)
    assert os.access(tmp_path / "out" / "postBuild", os.X_OK)
    assert built["source"] == git(root, "rev-parse", "HEAD").strip()


def test_a_second_build_keeps_the_history_and_commits_only_a_change(small_course, tmp_path):
    root, mod = small_course
    out = tmp_path / "out"
    first = mod.build_student_edition(str(out))
    assert mod.build_student_edition(str(out))["edition"] is None  # nothing changed: no empty commit
    write(out / ".venv" / "kept", "a student's environment, ignored by the edition's .gitignore")
    write(root / "gradlessons" / "figures.py", "X = 1\n")
    commit_all(root, "a new helper")
    second = mod.build_student_edition(str(out))
    log = git(out, "log", "--format=%H %P %s").splitlines()
    assert [line.split()[0] for line in log] == [second["edition"], first["edition"]]
    assert log[0].split()[1] == first["edition"] and log[0].endswith(second["source"])
    assert (out / "gradlessons" / "figures.py").read_text() == "X = 1\n" and (out / ".venv" / "kept").exists()
    (root / "gradlessons" / "figures.py").unlink()
    commit_all(root, "the helper goes")
    mod.build_student_edition(str(out))
    assert not (out / "gradlessons" / "figures.py").exists() and "gradlessons/figures.py" not in tracked(out)


def not_an_edition(kind: str, where) -> None:
    if kind == "a file":
        write(where, "notes")
    elif kind == "a folder of files":
        write(where / "essay.md", "mine")
    elif kind == "another git repository":
        write(where / "essay.md", "mine")
        git(where, "init", "-q")
        commit_all(where, "my essay")
    elif kind == "a git repository with no commit and files":
        write(where / "essay.md", "mine")
        git(where, "init", "-q")


@pytest.mark.parametrize("kind", ["a file", "a folder of files", "another git repository",
                                  "a git repository with no commit and files"])  # fmt: skip
def test_an_out_folder_that_is_not_an_edition_is_refused_and_left_as_it_was(small_course, tmp_path, kind):
    _, mod = small_course
    out = tmp_path / "out"
    not_an_edition(kind, out)
    before = {str(p): p.read_bytes() for p in [out, *out.rglob("*")] if p.is_file()}
    with pytest.raises(SystemExit, match="Choose another --out|choose another --out"):
        mod.build_student_edition(str(out))
    assert {str(p): p.read_bytes() for p in [out, *out.rglob("*")] if p.is_file()} == before


def test_the_course_itself_is_never_taken_for_an_edition(small_course):
    root, mod = small_course
    with pytest.raises(SystemExit, match="last commit is not a student edition's"):
        mod.build_student_edition(str(root))
    assert (root / "notebooks" / "l9" / "l9.ipynb").exists()


def test_an_edition_with_uncommitted_changes_is_refused(small_course, tmp_path):
    _, mod = small_course
    out = tmp_path / "out"
    mod.build_student_edition(str(out))
    write(out / "release" / "l9" / "my-notes.md", "mine")
    with pytest.raises(SystemExit, match="changes not committed.*my-notes.md"):
        mod.build_student_edition(str(out))
    assert (out / "release" / "l9" / "my-notes.md").read_text() == "mine"


@pytest.mark.parametrize(
    "broken, refusal",
    [
        ("a solution left in the release", "release/l9/l9.ipynb holds nbgrader's marker `### BEGIN SOLUTION`"),
        ("a marker line in a package", "autograder/answers.py holds nbgrader's marker `# END SOLUTION`"),
        ("a hidden test left in the release", "release/l9/l9.ipynb holds the hidden test line `assert f"),
        ("a hidden test in an output", "release/l9/l9.ipynb holds the hidden test line `assert f"),
        ("badges from before the last sync", "does not point at the student edition.*course.py sync"),
        ("no release notebook", "has no release/l9/l9.ipynb: run `python3 course.py sync`"),
        ("a link in a package", "plain files only.*autograder/answers.py"),
    ],
)
def test_a_course_that_would_leak_or_mislead_is_refused_before_anything_is_written(
    small_course, tmp_path, broken, refusal
):
    root, mod = small_course
    release = root / "release" / "l9" / "l9.ipynb"
    nb = json.loads(release.read_text())
    if broken == "a solution left in the release":
        nb["cells"][-2]["source"] = ["def f(x):\n", "    ### BEGIN SOLUTION\n", "    return x + 1\n"]
    elif broken == "a hidden test left in the release":
        nb["cells"][-1]["source"] = ["assert f(1) == 2\n", "assert f(41) == 42\n"]
    elif broken == "a hidden test in an output":
        nb["cells"][-1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["assert f(41) == 42\n"]}]
    elif broken == "badges from before the last sync":
        nb["cells"][0]["source"] = [mod.badges_markdown("https://github.com/someone/old", "main", "l9")]
    elif broken == "no release notebook":
        release.unlink()
    elif broken == "a marker line in a package":
        write(root / "autograder" / "answers.py", "def f(x):\n    return x + 1\n# END SOLUTION\n")
    else:
        (root / "autograder" / "answers.py").symlink_to("../notebooks/l9/l9.ipynb")
    if release.exists():
        write(release, nb)
    commit_all(root, broken)
    with pytest.raises(SystemExit, match=refusal):
        mod.build_student_edition(str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_settings_refuse_the_sources_as_the_student_edition():
    text = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    where = course.settings(text)
    same = re.sub(r'(?m)^student_branch = ".*"$', f'student_branch = "{where["branch"]}"', text)
    same = re.sub(r'(?m)^student_repository = ".*"$', f'student_repository = "{where["repository"]}.git"', same)
    with pytest.raises(SystemExit, match="badges would open every solution"):
        course.settings(same)
    missing = re.sub(r"(?m)^student_branch = .*\n", "", text)
    with pytest.raises(SystemExit, match=r"missing: student_branch\)"):
        course.settings(missing)


def test_the_command_says_where_it_built_and_how_to_publish(small_course, tmp_path):
    root, _ = small_course
    out = tmp_path / "published"
    done = subprocess.run([sys.executable, "course.py", "student-edition", "--out", str(out)], cwd=root,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    where = load_course(str(root)).settings()
    assert f"git -C {out} push {where['student_repository']} HEAD:{where['student_branch']}" in done.stdout
    assert "not committed, so not in this edition: ?? autograder/course_secret.py" in done.stdout
