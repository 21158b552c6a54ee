#!/usr/bin/env python3
"""One entry point for people, with nothing installed but Python 3.11:

    python3 course.py lab    set up .venv (pinned dependencies + the course packages), copy the
                             student notebooks into my-work/ (never overwriting your copies) and
                             open JupyterLab on lesson 1
    python3 course.py test   set up .venv if needed, then run the whole test suite
                             (--fast: the unit tests only, tests/unit/)
    python3 course.py sync   (course authors) after changing [tool.autograd-course] in pyproject.toml,
                             a lesson or autograder/codes.py: rewrite every lesson's badges and Colab
                             install cell, regenerate the student notebooks with nbgrader, the README's
                             badges and lesson-length table, and the code tables in docs/codes.md
    python3 course.py stats  (course authors) print each lesson's core path and whole length

Setting up is skipped when .venv already matches requirements*.txt and pyproject.toml.
Extra arguments after `test` go to pytest (e.g. `python3 course.py test -k corpus`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import venv
from urllib.parse import quote

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(ROOT, ".venv")
BIN = os.path.join(VENV, "bin")
STAMP = os.path.join(VENV, ".course-installed")
WORK = os.path.join(ROOT, "my-work")
FIRST_LESSON = "lesson1_requires_grad"
INPUTS = (
    "requirements.txt",
    "requirements-dev.txt",
    "hub/requirements.txt",
    "hub/requirements-ngshare-exchange.txt",
    "pyproject.toml",
    "lab/overrides.json",
)
# Installed as dependencies of dependencies, then removed (the list is part of the fingerprint below).
# rfc3987-syntax: jsonschema's optional checker of the "iri" format, which jupyter-events pulls in
# (jsonschema[format-nongpl]). Importing it builds dozens of parsers, in every process that imports
# nbformat: the grader, each nbgrader command, each Jupyter server. Nothing in the course checks
# IRIs, and jsonschema works without it (it then leaves that one format unchecked).
UNWANTED = ("rfc3987-syntax",)
# The course's JupyterLab settings (no "get notified about Jupyter news?" popup, no update checks),
# installed where JupyterLab reads settings for every user of an environment: here, on Binder and on the hub.
LAB_SETTINGS = os.path.join("lab", "overrides.json")
SETTINGS_TABLE = "autograd-course"  # [tool.autograd-course] in pyproject.toml: the one place for the repository URL
README_START = "<!-- badges: made by `python3 course.py sync` from [tool.autograd-course] in pyproject.toml -->"
README_END = "<!-- /badges -->"
LENGTH_START = "<!-- lesson-length: made by `python3 course.py sync` from the source notebooks -->"
LENGTH_END = "<!-- /lesson-length -->"
COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"
# The language_info ipykernel reports when a notebook's kernel starts.  JupyterLab writes the kernel's
# language_info into the notebook it opens, and a notebook whose stored one differs is marked modified at
# once: a student who has typed nothing would be asked to save.  So the notebooks carry exactly this (a
# test in tests/browser checks the tab stays clean).  Only ``version`` depends on the machine: the committed
# notebooks carry the course environment's, and ``copy_student_notebooks`` writes the local one.
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
    "version": "3.11.7",
}
BINDER_BADGE = "https://mybinder.org/badge_logo.svg"


def _fingerprint() -> str:
    digest = hashlib.sha256(" ".join(UNWANTED).encode())
    for name in INPUTS:
        with open(os.path.join(ROOT, name), "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


def setup() -> None:
    if sys.version_info < (3, 10):  # noqa: UP036 - people do start it with an old python3
        sys.exit(f"course.py: Python 3.10 or newer is needed (this is {sys.version.split()[0]}).")
    if os.path.exists(STAMP) and open(STAMP).read() == _fingerprint():
        return
    if not os.path.exists(os.path.join(BIN, "python")):
        print("course.py: creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("course.py: installing the pinned dependencies and the course packages ...", flush=True)
    pip = [os.path.join(BIN, "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run(pip + ["-r", os.path.join(ROOT, "requirements-dev.txt"), "-e", ROOT], check=True)
    # ngshare's nbgrader exchange declares a jupyter-core pin no JupyterLab 4 satisfies: see that file.
    exchange = os.path.join(ROOT, "hub", "requirements-ngshare-exchange.txt")
    subprocess.run(pip + ["--no-deps", "-r", exchange], check=True)
    uninstall = [os.path.join(BIN, "python"), "-m", "pip", "uninstall", "--disable-pip-version-check", "-q", "-y"]
    subprocess.run(uninstall + list(UNWANTED), check=True)
    install_lab_settings(VENV)
    with open(STAMP, "w") as f:
        f.write(_fingerprint())


def install_lab_settings(prefix: str) -> str:
    """Put the course's JupyterLab settings where the environment at ``prefix`` reads them."""
    target = os.path.join(prefix, "share", "jupyter", "lab", "settings", "overrides.json")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(os.path.join(ROOT, LAB_SETTINGS), target)
    return target


def copy_student_notebooks() -> None:
    """Copy each released notebook to my-work/ unless the student already has a copy there."""
    release = os.path.join(ROOT, "release")
    os.makedirs(WORK, exist_ok=True)
    for assignment in sorted(os.listdir(release)):
        source = os.path.join(release, assignment, f"{assignment}.ipynb")
        target = os.path.join(WORK, f"{assignment}.ipynb")
        if os.path.isfile(source) and not os.path.exists(target):
            shutil.copyfile(source, target)
            with_local_python(target)


def with_local_python(path: str) -> None:
    """The notebook at ``path`` with the Python version its kernel will report (see ``LANGUAGE_INFO``),
    so that JupyterLab opens it unmodified."""
    python = os.path.join(BIN, "python")
    if not os.path.exists(python):
        return
    found = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                           capture_output=True, text=True, check=False)  # fmt: skip
    version = found.stdout.strip()
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    info = nb.setdefault("metadata", {}).setdefault("language_info", {})
    if found.returncode != 0 or not version or info.get("version") == version:
        return
    info.update({**LANGUAGE_INFO, "version": version})
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def lab(extra: list[str]) -> int:
    setup()
    copy_student_notebooks()
    notebook = os.path.join("my-work", f"{FIRST_LESSON}.ipynb")
    return subprocess.call([os.path.join(BIN, "jupyter"), "lab", notebook, *root_flags(), *extra], cwd=ROOT)


def root_flags() -> list[str]:
    """JupyterLab refuses to start as root ("Running as root is not recommended") unless told: in a
    container or a CI machine, where root is the only user, say why and tell it."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return []
    print(
        "course.py: you are root (as in a container or on a CI machine). JupyterLab refuses to run as root\n"
        "unless told, so it starts with --allow-root. On a machine people share, run it as a normal user instead.",
        flush=True,
    )
    return ["--allow-root"]


TEST_PROCESSES = ["-n", "2", "--dist", "loadfile"]  # a file's tests share their fixtures, in one process
FAST_TIER = "tests/unit"  # tests of one module each: no notebooks run end to end, no browser, no hub
SLOWEST = "--durations=15"  # the run ends with where the time went


def test(extra: list[str]) -> int:
    """The whole suite, in two processes (pytest-xdist), each test file whole in one of them; options
    after `test` go to pytest (`-n 0` runs everything in one process).  ``--fast``: tests/unit only."""
    setup()
    fast = "--fast" in extra
    extra = [a for a in extra if a != "--fast"]
    chosen = any(a.startswith(("-n", "--numprocesses", "--dist")) for a in extra)
    parallel = [] if chosen else TEST_PROCESSES
    paths = [FAST_TIER] if fast else []
    command = [os.path.join(BIN, "python"), "-m", "pytest", *parallel, SLOWEST, *extra, *paths]
    return subprocess.call(command, cwd=ROOT)


# ---- one source of truth for where the course lives: badges and the Colab install cell ----


def settings() -> dict:
    """`repository` and `branch` from [tool.autograd-course] in pyproject.toml."""
    try:
        import tomllib
    except ImportError:  # Python 3.10: authors use 3.11, like the course
        sys.exit("course.py: `sync` needs Python 3.11 or newer (tomllib).")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        table = tomllib.load(f).get("tool", {}).get(SETTINGS_TABLE, {})
    repository, branch = table.get("repository"), table.get("branch")
    if not isinstance(repository, str) or not repository or not isinstance(branch, str) or not branch:
        sys.exit(f"course.py: pyproject.toml needs [tool.{SETTINGS_TABLE}] with `repository` and `branch`.")
    return {"repository": repository.rstrip("/").removesuffix(".git"), "branch": branch}


def assignments() -> list[str]:
    source = os.path.join(ROOT, "notebooks")
    return sorted(a for a in os.listdir(source) if os.path.isfile(os.path.join(source, a, f"{a}.ipynb")))


def install_spec(repository: str, branch: str) -> str:
    """What pip installs in Colab: the course's packages straight from the repository."""
    return f"git+{repository}@{branch}"


def _github(repository: str) -> tuple[str, str] | None:
    match = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+)", repository)
    return (match.group(1), match.group(2)) if match else None


def colab_url(repository: str, branch: str, path: str) -> str | None:
    """Colab opens notebooks from GitHub only."""
    github = _github(repository)
    return f"https://colab.research.google.com/github/{github[0]}/{github[1]}/blob/{branch}/{path}" if github else None


def binder_url(repository: str, branch: str, path: str) -> str | None:
    """A Binder launch that lands in JupyterLab on `path`."""
    landing = "?urlpath=" + quote(f"lab/tree/{path}", safe="")
    github = _github(repository)
    if github:
        return f"https://mybinder.org/v2/gh/{github[0]}/{github[1]}/{quote(branch, safe='')}{landing}"
    if repository.startswith("https://"):
        return f"https://mybinder.org/v2/git/{quote(repository, safe='')}/{quote(branch, safe='')}{landing}"
    return None  # a local copy: nothing public to launch


def release_path(assignment: str) -> str:
    return f"release/{assignment}/{assignment}.ipynb"


def badges_markdown(repository: str, branch: str, assignment: str) -> str:
    path = release_path(assignment)
    badges = []
    if url := colab_url(repository, branch, path):
        badges.append(f"[![Open In Colab]({COLAB_BADGE})]({url})")
    if url := binder_url(repository, branch, path):
        badges.append(f"[![Launch Binder]({BINDER_BADGE})]({url})")
    if not badges:
        return f"*This copy of the course comes from `{repository}`, which has no public page to open it from.*"
    return " ".join(badges)


def install_cell_source(repository: str, branch: str) -> str:
    return (
        "# Colab, or any Python without this course: install the course's helper packages first.\n"
        "# Everywhere else (JupyterLab from the course, Binder, the graders) this cell does nothing.\n"
        "import importlib\n"
        "import importlib.util\n"
        "\n"
        'if importlib.util.find_spec("gradlessons") is None or importlib.util.find_spec("autograder") is None:\n'
        f'    %pip install --quiet "{install_spec(repository, branch)}"\n'
        "    importlib.invalidate_caches()"
    )


def _locked_cell(kind: str, cell_id: str, source: str) -> dict:
    meta = {"grade": False, "grade_id": cell_id, "locked": True, "schema_version": 3, "solution": False, "task": False}
    cell = {"cell_type": kind, "id": cell_id, "metadata": {"nbgrader": meta}, "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def synced_notebook(nb: dict, repository: str, branch: str, assignment: str) -> dict:
    """The source notebook with its badge cell first and its install cell right after the title."""
    cells = [c for c in nb["cells"] if c.get("id") not in ("badges", "install")]
    badges = _locked_cell("markdown", "badges", badges_markdown(repository, branch, assignment))
    install = _locked_cell("code", "install", install_cell_source(repository, branch))
    for cell in (badges, install):
        cell["source"] = _lines(cell["source"])
    return {**nb, "cells": [badges, cells[0], install, *cells[1:]]}


def readme_block(repository: str, branch: str) -> str:
    rows = ["| lesson | open it |", "| --- | --- |"]
    for assignment in assignments():
        rows.append(f"| `{assignment}` | {badges_markdown(repository, branch, assignment)} |")
    return "\n".join([README_START, *rows, README_END])


# ---- how long a lesson takes: the core path (before "## Exercises") and the whole notebook ----

# The stated speeds of a beginner: technical prose is read at about 150 words a minute; code is read,
# run and its output looked at, one non-blank line every 5 s (12 lines a minute: the lesson's lines
# are short and new); each quick-check question needs about 45 s of thinking on top of reading it;
# an explorer's guided sequence takes about 3 minutes of clicking.
WORDS_PER_MINUTE = 150
CODE_LINES_PER_MINUTE = 12
SECONDS_PER_QUESTION = 45
EXPLORER_MINUTES = 3
CORE_PATH_MINUTES = 15  # what each lesson's "about 15 minutes" promises, checked by the tests
HANDED_OUT = ("badges", "install")  # cells made by `sync`, not part of the lesson's text
# What a student never reads in a code cell: the solution (the student sees one line to replace
# instead) and the hidden tests.
_HIDDEN = re.compile(r"^[ \t]*### BEGIN (SOLUTION|HIDDEN TESTS)\b.*?^[ \t]*### END \1\b[^\n]*\n?", re.S | re.M)


def _sections(nb: dict) -> dict[str, list[dict]]:
    """The lesson's cells split into its core path (everything before the `## Exercises` heading),
    the exercises, and the optional `## Going deeper ...` sections (after the exercises)."""
    parts: dict[str, list[dict]] = {"core": [], "exercises": [], "deeper": []}
    part = "core"
    for cell in nb["cells"]:
        if cell.get("id") in HANDED_OUT:
            continue
        heading = "".join(cell["source"]).lstrip() if cell["cell_type"] == "markdown" else ""
        if heading.startswith("## "):
            title = heading[3:].split("\n", 1)[0].strip().lower()
            if re.match(r"(\d+\.\s*)?exercises\b", title):
                part = "exercises"
            elif re.match(r"(\d+\.\s*)?going deeper\b", title):
                part = "deeper"
        parts[part].append(cell)
    return parts


def code_lines(source: str) -> int:
    """The non-blank lines a student reads in a code cell: a solution counts as the one line the
    student replaces, hidden tests count as nothing."""
    solutions = len(re.findall(r"^[ \t]*### BEGIN SOLUTION\b", source, re.M))
    return solutions + sum(1 for line in _HIDDEN.sub("", source).splitlines() if line.strip())


def _length(cells: list[dict]) -> dict:
    markdown = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    # A word has a letter or digit in it: markdown's `#`, `-` and `·` are not read.
    words = sum(len(re.findall(r"\S*\w\S*", text)) for text in markdown)
    lines = sum(code_lines(text) for text in code)
    questions = sum(1 for text in markdown if re.match(r"\s*\*\*Question\b", text))
    explorers = sum(1 for text in code if re.search(r"\b\w+Explorer\(\)", text))
    exact = (
        words / WORDS_PER_MINUTE
        + lines / CODE_LINES_PER_MINUTE
        + questions * SECONDS_PER_QUESTION / 60
        + explorers * EXPLORER_MINUTES
    )
    return {"cells": len(cells), "words": words, "code_lines": lines, "questions": questions,
            "explorers": explorers, "exact_minutes": exact, "minutes": round(exact)}  # fmt: skip


def lesson_stats(assignment: str) -> dict:
    """Cells, words and estimated minutes of the core path and of the whole lesson."""
    with open(os.path.join(ROOT, "notebooks", assignment, f"{assignment}.ipynb"), encoding="utf-8") as f:
        parts = _sections(json.load(f))
    return {"core": _length(parts["core"]), "all": _length(parts["core"] + parts["exercises"] + parts["deeper"])}


def length_block() -> str:
    rows = [
        "| lesson | core path: words | code lines | questions | minutes | whole lesson: words | code lines | minutes |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for assignment in assignments():
        lengths = lesson_stats(assignment)
        core, whole = lengths["core"], lengths["all"]
        rows.append(
            f"| `{assignment}` | {core['words']} | {core['code_lines']} | {core['questions']} | {core['minutes']} "
            f"| {whole['words']} | {whole['code_lines']} | {whole['minutes']} |"
        )
    return "\n".join([LENGTH_START, *rows, LENGTH_END])


CODES = re.compile(r"(<!-- codes: ([\w ]+?) \(made by .*?-->\n).*?(<!-- /codes -->)", re.S)
CODES_DOC = os.path.join("docs", "codes.md")  # where the diagnosis-code tables live, written by `sync`


def _codes_module():
    """autograder/codes.py, loaded by path: plain data, so no torch (nor the course's venv) is needed."""
    spec = importlib.util.spec_from_file_location("_course_codes", os.path.join(ROOT, "autograder", "codes.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def codes_blocks(text: str) -> str:
    """``text`` (docs/codes.md) with every diagnosis-code table written again from autograder/codes.py."""
    codes = _codes_module()
    return CODES.sub(lambda m: f"{m[1]}{codes.table(m[2].split())}\n{m[3]}", text)


def stats(extra: list[str]) -> int:
    print(length_block().split("\n", 1)[1].rsplit("\n", 1)[0])
    print(
        f"(minutes: words / {WORDS_PER_MINUTE} + code lines / {CODE_LINES_PER_MINUTE} "
        f"+ {SECONDS_PER_QUESTION} s per quick-check question + {EXPLORER_MINUTES} min per explorer)"
    )
    return 0


def _dump(nb: dict) -> str:
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def sync(extra: list[str]) -> int:
    """Write the repository setting into every lesson, the student notebooks and the README, and the
    diagnosis-code tables into docs/codes.md."""
    where = settings()
    repository, branch = where["repository"], where["branch"]
    readme = os.path.join(ROOT, "README.md")
    text = open(readme, encoding="utf-8").read()
    block = re.compile(re.escape(README_START) + r".*?" + re.escape(README_END), re.S)
    lengths = re.compile(re.escape(LENGTH_START) + r".*?" + re.escape(LENGTH_END), re.S)
    for name, found, start, end in (
        ("badge", block, README_START, README_END),
        ("lesson-length", lengths, LENGTH_START, LENGTH_END),
    ):
        if not found.search(text):  # checked before anything is written
            sys.exit(f"course.py: README.md has no {name} block (a line `{start}` ... `{end}`).")
    codes_doc = os.path.join(ROOT, CODES_DOC)
    codes_text = open(codes_doc, encoding="utf-8").read() if os.path.exists(codes_doc) else ""
    if not CODES.search(codes_text):
        sys.exit(f"course.py: {CODES_DOC} has no code table block (a line `<!-- codes: EXERCISE ... -->` ... "
                 "`<!-- /codes -->`).")  # fmt: skip
    for assignment in assignments():
        path = os.path.join(ROOT, "notebooks", assignment, f"{assignment}.ipynb")
        with open(path, encoding="utf-8") as f:
            nb = json.load(f)
        with open(path, "w", encoding="utf-8") as f:
            f.write(_dump(synced_notebook(nb, repository, branch, assignment)))
    with open(readme, "w", encoding="utf-8") as f:
        text = block.sub(lambda _: readme_block(repository, branch), text, count=1)
        f.write(lengths.sub(lambda _: length_block(), text, count=1))
    with open(codes_doc, "w", encoding="utf-8") as f:
        f.write(codes_blocks(codes_text))
    # The student notebooks come from the sources, through nbgrader as always.
    if importlib.util.find_spec("nbgrader") is not None:
        nbgrader = [sys.executable, "-m", "nbgrader"]
    else:
        setup()
        nbgrader = [os.path.join(BIN, "python"), "-m", "nbgrader"]
    # nbgrader runs the `alembic` command of its own environment when it creates a gradebook: that
    # environment's bin goes first on PATH, also when its python was called without activating it.
    env = {**os.environ, "PATH": os.pathsep.join([os.path.dirname(nbgrader[0]), os.environ.get("PATH", "")])}
    for assignment in assignments():
        done = subprocess.run([*nbgrader, "generate_assignment", assignment, "--force"], cwd=ROOT,
                              capture_output=True, text=True, env=env)  # fmt: skip
        if done.returncode != 0:
            print(done.stdout[-3000:], done.stderr[-3000:], sep="\n", file=sys.stderr)
            return done.returncode
    print(f"course.py: {len(assignments())} lessons and README.md now point at {repository} ({branch}).")
    return 0


def main(argv: list[str]) -> int:
    commands = {"lab": lab, "test": test, "sync": sync, "stats": stats}
    if not argv or argv[0] not in commands:
        print(__doc__)
        return 2
    return commands[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
