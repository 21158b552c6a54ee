#!/usr/bin/env python3
"""One entry point for people, with nothing installed but Python 3.11:

    python3 course.py lab    set up .venv with the student set (requirements.txt: the course, JupyterLab,
                             torch, ipywidgets, matplotlib, nbgrader), copy the student notebooks into
                             my-work/ (never overwriting your copies) and open JupyterLab on lesson 1,
                             without the instructor's tools (lab/etc/student)
                             (--instructor: the instructor's set and JupyterLab with the formgrader;
                             any other option goes to JupyterLab, e.g. --no-browser, --port 8890;
                             `lab --help` says more and installs nothing)
    python3 course.py test   set up .venv with everything (requirements-dev.txt), then run the whole test
                             suite (--fast: the unit tests only, tests/unit/)
    python3 course.py install ROLE
                             set up .venv for a role and start nothing: student, instructor (grading,
                             the formgrader, publishing grades over LTI), hub or developer
    python3 course.py sync   (course authors) after changing [tool.autograd-course] in pyproject.toml,
                             a lesson or autograder/codes.py: rewrite every lesson's badges and Colab
                             install cell (both name the student edition) and its time cell (the lesson
                             is run to be timed), regenerate the student notebooks with nbgrader, the
                             README's badges and lesson-length table, and the code tables in docs/codes.md
                             (a lesson's run is kept in ~/.cache/autograd-course/lesson-runs and used again
                             while the lesson, the course's packages and its pins are unchanged; --rerun:
                             run every lesson again)
    python3 course.py student-edition [--out DIR]
                             (instructors) build what students may have, and nothing else (no solution,
                             no hidden test), from the last commit into DIR (default build/student-edition),
                             a git repository with one commit per build: push it to the student_repository
                             and student_branch of [tool.autograd-course], which every badge opens
    python3 course.py stats  (course authors) run every lesson and print how long a beginner takes over each
                             part of it, activity by activity (sync writes the same into the lessons)

Setting up is skipped when .venv already holds the role's set (or a larger one), installed from the
requirement files and pyproject.toml as they are now.
Extra arguments after `test` go to pytest (e.g. `python3 course.py test -k corpus`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time as clock
import venv
from functools import cache
from urllib.parse import quote

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(ROOT, ".venv")
BIN = os.path.join(VENV, "bin")
STAMP = os.path.join(VENV, ".course-installed")
WORK = os.path.join(ROOT, "my-work")
FIRST_LESSON = "lesson1_requires_grad"
# Who installs what.  Each role's set is the one before it and more: its requirement file names the file
# before it with -r, so every pin is written once.  A learner waits for the student set alone (torch is
# most of it), not for the hub, the browser the tests drive or the Kubernetes client.
ROLES = ("student", "instructor", "hub", "developer")
REQUIREMENTS = {
    "student": "requirements.txt",  # the course, JupyterLab, torch, ipywidgets, matplotlib, nbgrader
    "instructor": "requirements-instructor.txt",  # + what `python -m autograder publish` sends grades with
    "hub": "hub/requirements.txt",  # + JupyterHub, its database driver, LTI logins, the culler, ngshare
    "developer": "requirements-dev.txt",  # + pytest, ruff, playwright, the Kubernetes client
}
# Installed with --no-deps from the hub's set on: see that file.
NO_DEPS = {"hub": "hub/requirements-ngshare-exchange.txt"}
# The installer: uv, pinned in this file and put into .venv by pip first, installs the student set in
# about a quarter of pip's time (it unpacks in parallel, and leaves the student's own Python to compile
# what it imports); pip installs when uv cannot be had or fails, and when COURSE_INSTALLER=pip.
# benchmarks/student_install.py measures both.
INSTALLER_PINS = "requirements-installer.txt"
# What every role's install reads besides its requirement files.
INPUTS = ("pyproject.toml", "lab/overrides.json", INSTALLER_PINS)
# pip's settings that uv takes as options (uv reads no pip.conf and no PIP_* variable): where a machine
# says to take packages from, as this one takes torch's CPU wheel from a local folder.
UV_OPTIONS = {
    "index-url": "--index-url",
    "extra-index-url": "--extra-index-url",
    "find-links": "--find-links",
    "constraint": "--constraints",
    "cert": "--cert",
}
# Installed as dependencies of dependencies, then removed (the list is part of the fingerprint below).
# rfc3987-syntax: jsonschema's optional checker of the "iri" format, which jupyter-events pulls in
# (jsonschema[format-nongpl], from jsonschema 4.24). Importing it builds dozens of parsers, in every
# process that imports nbformat: the grader, each nbgrader command, each Jupyter server. Nothing in the
# course checks IRIs, and jsonschema works without it (it then leaves that one format unchecked).
# requirements.txt pins a jsonschema that does not ask for it, so that every install (the hub's as
# docs/instructor.md gives it, Binder's, Colab's) goes without; this removes one an older pin left.
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


def role_inputs(role: str) -> list[str]:
    """The files an install for ``role`` reads: its requirement files and those of every role below it."""
    upto = ROLES[: ROLES.index(role) + 1]
    return [REQUIREMENTS[r] for r in upto] + [NO_DEPS[r] for r in upto if r in NO_DEPS] + list(INPUTS)


def _fingerprint(role: str) -> str:
    digest = hashlib.sha256(" ".join((role, *UNWANTED)).encode())
    for name in role_inputs(role):
        with open(os.path.join(ROOT, name), "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


def _stamp() -> dict:
    """What ``setup`` wrote when it last set up .venv (``role``, ``fingerprint``), or {}: no stamp, one
    from before roles (a bare fingerprint: set up again), or one this script cannot read."""
    try:
        with open(STAMP) as f:
            stamp = json.load(f)
    except (OSError, ValueError):
        return {}
    return stamp if isinstance(stamp, dict) and stamp.get("role") in ROLES else {}


def installed_role() -> str | None:
    return _stamp().get("role")


def needs_install(role: str) -> str | None:
    """The role to install so that .venv serves ``role``, or None when it already does: its stamp names
    this role or a larger one, whose files have not changed since.  A .venv set up for a larger role
    whose files changed is set up again for that larger role, so that it keeps everything it had."""
    stamp = _stamp()
    have = stamp.get("role")
    if have is None or ROLES.index(have) < ROLES.index(role):
        return role
    return None if stamp.get("fingerprint") == _fingerprint(have) else have


def setup(role: str = "student") -> None:
    if sys.version_info < (3, 10):  # noqa: UP036 - people do start it with an old python3
        sys.exit(f"course.py: Python 3.10 or newer is needed (this is {sys.version.split()[0]}).")
    role = needs_install(role)
    if role is None:
        return
    if not os.path.exists(os.path.join(BIN, "python")):
        print("course.py: creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print(f"course.py: installing the {role}'s set ({REQUIREMENTS[role]}) and the course packages ...", flush=True)
    install = installer()
    try:
        for command in install_commands(role, install):
            subprocess.run(command, check=True)
    except subprocess.CalledProcessError:
        if install == pip_install():
            raise
        print("course.py: uv could not install it; pip installs it instead (slower) ...", flush=True)
        for command in install_commands(role, pip_install()):
            subprocess.run(command, check=True)
    close_uv_lock(VENV)
    install_lab_settings(VENV)
    with open(STAMP, "w") as f:
        json.dump({"role": role, "fingerprint": _fingerprint(role)}, f)


def close_uv_lock(environment: str) -> None:
    """uv leaves an empty ``.lock`` in the environment that every account may write (mode 666): on a hub,
    where students' servers and root run this environment, hub/install.py rightly refuses a file others
    can change there.  uv opens an existing one as it is, so it only needs to be its owner's."""
    lock = os.path.join(environment, ".lock")
    if os.path.isfile(lock) and not os.path.islink(lock):
        os.chmod(lock, 0o644)


def install_commands(role: str, install: list[str]) -> list[list[str]]:
    """The commands that set up .venv for ``role`` with ``install`` (pip's or uv's): its requirement file
    (which names the smaller roles' files) and the course's packages, the --no-deps extras of the roles it
    includes, then the removal of what ``UNWANTED`` lists."""
    if os.path.basename(install[0]) == "uv" and role != "student":
        # pip compiles every module's bytecode when it installs; uv only when told.  A student's .venv is
        # the student's, and Python writes the bytecode of what it imports there.  From the instructor's
        # set on, grading imports torch as accounts that cannot write into .venv: compiled up front
        # (uv compiles all of site-packages, so a student's .venv made an instructor's is compiled too).
        install = [*install, "--compile-bytecode"]
    commands = [install + ["-r", os.path.join(ROOT, REQUIREMENTS[role]), "-e", ROOT]]
    # ngshare's nbgrader exchange declares a jupyter-core pin no JupyterLab 4 satisfies: see that file.
    upto = ROLES[: ROLES.index(role) + 1]
    commands += [install + ["--no-deps", "-r", os.path.join(ROOT, NO_DEPS[r])] for r in upto if r in NO_DEPS]
    # -qq: pip says "Skipping ... as it is not installed" as a warning, and a fresh .venv never had them.
    uninstall = [os.path.join(BIN, "python"), "-m", "pip", "uninstall", "--disable-pip-version-check", "-qq", "-y"]
    return commands + [uninstall + list(UNWANTED)]


def pip_install() -> list[str]:
    return [os.path.join(BIN, "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q"]


def installer() -> list[str]:
    """How to install into .venv: uv (``INSTALLER_PINS``, installed by pip), told pip's settings on this
    machine; pip's own install when COURSE_INSTALLER=pip or uv cannot be installed."""
    pip = pip_install()
    if os.environ.get("COURSE_INSTALLER", "uv") == "pip":
        return pip
    got = subprocess.run(pip + ["-r", os.path.join(ROOT, INSTALLER_PINS)], check=False)
    uv = os.path.join(BIN, "uv")
    if got.returncode != 0 or not os.path.exists(uv):
        print("course.py: uv could not be installed, so pip installs (slower) ...", flush=True)
        return pip
    listed = subprocess.run([pip[0], "-m", "pip", "config", "list"], capture_output=True, text=True, check=False)
    python = os.path.join(BIN, "python")
    # pip takes the best match over all its indexes and folders; uv's default stops at the first index
    return [uv, "pip", "install", "-q", "--python", python, "--index-strategy", "unsafe-best-match",
            *uv_options(listed.stdout)]  # fmt: skip


def uv_options(pip_config: str) -> list[str]:
    """``pip config list``'s output (pip's files and PIP_* variables) as uv's options, each once."""
    options = []
    for line in pip_config.splitlines():
        key, _, value = line.partition("=")
        section, _, name = key.strip().rpartition(".")
        if section not in ("global", "install", ":env:") or name not in UV_OPTIONS:
            continue
        for item in value.strip().strip("'\"").split():
            options.append((UV_OPTIONS[name], item))
    return [word for option in dict.fromkeys(options) for word in option]


def install_lab_settings(prefix: str) -> str:
    """Put the course's JupyterLab settings where the environment at ``prefix`` reads them."""
    target = os.path.join(prefix, "share", "jupyter", "lab", "settings", "overrides.json")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(os.path.join(ROOT, LAB_SETTINGS), target)
    return target


def copy_student_notebooks(lang: str = "en") -> None:
    """Copy each released notebook of the ``lang`` edition to my-work/ unless the student already has
    a copy there."""
    release = os.path.join(ROOT, "release")
    os.makedirs(WORK, exist_ok=True)
    for assignment in sorted(os.listdir(release)):
        if edition_of(assignment)[1] != lang:
            continue
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


INSTRUCTOR_FLAG = "--instructor"  # `course.py lab --instructor`: the formgrader and what grading needs
LANG_FLAG = "--lang"  # `course.py lab --lang pt_BR`: the Portuguese edition, in a Portuguese JupyterLab
CHOICES = os.path.join(WORK, ".course.json")  # what `lab` remembers for my-work/: the language
LAB_SETTINGS_DIRS = os.path.join(ROOT, ".venv", "lab-user-settings")  # one JupyterLab settings folder per language
LAB_HELP = f"""usage: python3 course.py lab [{INSTRUCTOR_FLAG}] [{LANG_FLAG} en|pt_BR] [JupyterLab's options]

Set up .venv with the student set (the first time, or when the pinned requirements changed), copy the
student notebooks into my-work/ (never overwriting your copies) and open JupyterLab on lesson 1.

  {INSTRUCTOR_FLAG}   the instructor's set, and JupyterLab with nbgrader's formgrader and Create Assignment
  {LANG_FLAG} pt_BR   the lessons in Brazilian Portuguese (Português do Brasil), JupyterLab's menus too;
                 remembered for my-work/ until you give another {LANG_FLAG} (en: English, the default)
Every other option goes to `jupyter lab`, for example:
  --no-browser      print the address instead of opening a browser
  --port 8890       serve on another port (the default is 8888, or the next free one)"""


def lab(extra: list[str]) -> int:
    """JupyterLab for a learner: the student set, the student's settings.  ``--instructor``: the
    instructor's set, and the formgrader and "create assignment" tools the students' settings hide."""
    if "-h" in extra or "--help" in extra:  # before anything is installed
        print(LAB_HELP)
        return 0
    instructor = INSTRUCTOR_FLAG in extra
    extra = [a for a in extra if a != INSTRUCTOR_FLAG]
    lang, extra = chosen_language(extra)
    setup("instructor" if instructor else "student")
    copy_student_notebooks(lang)
    notebook = os.path.join("my-work", f"{edition(FIRST_LESSON, lang)}.ipynb")
    command = [os.path.join(BIN, "jupyter"), "lab", notebook, *root_flags(), *extra]
    return subprocess.call(command, cwd=ROOT, env=lab_environment(os.environ, instructor=instructor, lang=lang))


def chosen_language(extra: list[str]) -> tuple[str, list[str]]:
    """The language ``--lang`` names (then remembered in my-work/.course.json), else the remembered one,
    else English; and the other options."""
    rest, lang = [], None
    args = iter(extra)
    for arg in args:
        if arg == LANG_FLAG:
            lang = next(args, "")
        elif arg.startswith(LANG_FLAG + "="):
            lang = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    known = (ENGLISH, *EDITIONS)
    if lang is not None:
        if lang not in known:
            sys.exit(f"course.py: {LANG_FLAG} {lang!r}: the course speaks {', '.join(known)}.")
        os.makedirs(WORK, exist_ok=True)
        with open(CHOICES, "w", encoding="utf-8") as f:
            json.dump({"language": lang}, f)
        return lang, rest
    try:
        with open(CHOICES, encoding="utf-8") as f:
            remembered = json.load(f).get("language")
    except (OSError, ValueError, AttributeError):
        remembered = None
    return (remembered if remembered in known else ENGLISH), rest


def lab_settings_dir(lang: str) -> str:
    """JupyterLab's user settings for ``lang``: its own folder, whose translation setting names the
    language (JupyterLab reads the locale from there; the course's overrides.json is shared)."""
    folder = os.path.join(LAB_SETTINGS_DIRS, lang)
    plugin = os.path.join(folder, "@jupyterlab", "translation-extension", "plugin.jupyterlab-settings")
    if not os.path.exists(plugin):
        os.makedirs(os.path.dirname(plugin), exist_ok=True)
        with open(plugin, "w", encoding="utf-8") as f:
            json.dump({"locale": "en" if lang == ENGLISH else lang}, f)
    return folder


def install(extra: list[str]) -> int:
    """`python3 course.py install ROLE`: set up .venv for ``ROLE`` (see ``REQUIREMENTS``), start nothing."""
    if len(extra) != 1 or extra[0] not in ROLES:
        print(f"usage: python3 course.py install {{{','.join(ROLES)}}}", file=sys.stderr)
        return 2
    setup(extra[0])
    print(f"course.py: .venv has the {installed_role()}'s set; activate it with `. .venv/bin/activate`.")
    return 0


# The Jupyter settings every server of the course reads, the hub's and this one: the course's exchange,
# and no warning a newcomer did not cause (encrypted kernel sockets, tornado's websocket-setting
# warning left out unless `--debug`; autograder/quiet.py).
SERVER_SETTINGS = os.path.join(ROOT, "hub", "etc", "jupyter")
# What a learner's JupyterLab from `course.py lab` reads before it: nbgrader's tools for students only (no
# formgrader, no course list, no "create assignment" toolbar).  The hub's students read hub/etc/student,
# which turns off these and, for a shared machine's sake, the terminal and the language server too: a
# learner's own JupyterLab keeps those.  (tests/unit/course/test_lab_environment.py keeps the two in step.)
STUDENT_SETTINGS = os.path.join(ROOT, "lab", "etc", "student")
# And, when there is no class exchange on this machine (a learner at home), no Assignment List either: it
# would only log "Unwritable directory … contact your instructor" tracebacks while the learner works.
SOLO_SETTINGS = os.path.join(ROOT, "lab", "etc", "solo")


def lab_environment(environ, instructor: bool = False, lang: str | None = None) -> dict:
    """``environ`` with the course's server settings first in JUPYTER_CONFIG_PATH (any others after):
    the students' before the common ones, unless for an ``instructor``; without a class exchange, the
    solo learner's before those.  With a ``lang`` other than English, JupyterLab's user settings are
    that language's (JUPYTERLAB_SETTINGS_DIR), so its menus speak it."""
    if instructor:
        course = [SERVER_SETTINGS]
    else:
        from autograder.settings import SETTINGS  # the standard library's only: no venv needed

        # Where nbgrader_config.py and hub/etc/jupyter/nbgrader_config.py put the exchange.
        exchange = SETTINGS.value("exchange", environ) or SETTINGS.default("exchange")
        course = [STUDENT_SETTINGS, SERVER_SETTINGS]
        if not os.path.isdir(exchange):
            course.insert(0, SOLO_SETTINGS)
    paths = course + [p for p in environ.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep) if p]
    found = {**environ, "JUPYTER_CONFIG_PATH": os.pathsep.join(dict.fromkeys(paths))}
    if lang and lang != ENGLISH:
        found["JUPYTERLAB_SETTINGS_DIR"] = lab_settings_dir(lang)
    return found


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
    after `test` go to pytest (`-n 0` runs everything in one process).  ``--fast``: tests/unit only.
    The suite runs the hub, the browser and the image: it needs every role's set."""
    setup("developer")
    fast = "--fast" in extra
    extra = [a for a in extra if a != "--fast"]
    chosen = any(a.startswith(("-n", "--numprocesses", "--dist")) for a in extra)
    parallel = [] if chosen else TEST_PROCESSES
    paths = [FAST_TIER] if fast else []
    command = [os.path.join(BIN, "python"), "-m", "pytest", *parallel, SLOWEST, *extra, *paths]
    return subprocess.call(command, cwd=ROOT)


# ---- one source of truth for where the course lives: badges and the Colab install cell ----


SETTINGS = ("repository", "branch", "student_repository", "student_branch")


def settings(text: str | None = None) -> dict:
    """[tool.autograd-course] in pyproject.toml: where the sources live (`repository`, `branch`) and where
    the student edition is published (`student_repository`, `student_branch`), which every badge and
    install cell names.  The two may share a repository, never a branch: students would open the solutions."""
    try:
        import tomllib
    except ImportError:  # Python 3.10: authors use 3.11, like the course
        sys.exit("course.py: `sync` and `student-edition` need Python 3.11 or newer (tomllib).")
    if text is None:  # the working tree's; the student edition reads the pyproject.toml of the commit it builds
        with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
            text = f.read()
    table = tomllib.loads(text).get("tool", {}).get(SETTINGS_TABLE, {})
    missing = [key for key in SETTINGS if not isinstance(table.get(key), str) or not table[key].strip()]
    if missing:
        named = ", ".join(f"`{key}`" for key in SETTINGS)
        sys.exit(f"course.py: pyproject.toml needs [tool.{SETTINGS_TABLE}] with {named} "
                 f"(missing: {', '.join(missing)}).")  # fmt: skip
    found = {key: table[key].strip() for key in SETTINGS}
    for key in ("repository", "student_repository"):  # ".git" is dropped once, here
        found[key] = found[key].rstrip("/").removesuffix(".git")
    if (found["student_repository"], found["student_branch"]) == (found["repository"], found["branch"]):
        sys.exit(f"course.py: [tool.{SETTINGS_TABLE}] names the sources ({found['repository']}, branch "
                 f"{found['branch']}) as the student edition: the badges would open every solution and hidden test. "
                 "Set `student_repository` or `student_branch` to where `python3 course.py student-edition` is "
                 "published.")  # fmt: skip
    return found


# The editions beside English: a lesson's edition is an nbgrader assignment of its own, `<lesson><suffix>`,
# whose source `sync` builds from the English source and the catalogue locale/<lang>/LC_MESSAGES/<lesson>.po.
EDITIONS = {"pt_BR": "_pt_br"}
LANGUAGE_NAMES = {"pt_BR": "Português (Brasil)"}  # as JupyterLab's Settings → Language menu names each
ENGLISH = "en"


def assignments() -> list[str]:
    """Every assignment with a source notebook: the English lessons and their editions."""
    source = os.path.join(ROOT, "notebooks")
    return sorted(a for a in os.listdir(source) if os.path.isfile(os.path.join(source, a, f"{a}.ipynb")))


def edition_of(assignment: str) -> tuple[str, str]:
    """(the English lesson, the language) of an assignment id: ``lesson3_zeroing_grad_pt_br`` ->
    (``lesson3_zeroing_grad``, ``pt_BR``)."""
    for lang, suffix in EDITIONS.items():
        if assignment.endswith(suffix) and len(assignment) > len(suffix):
            return assignment[: -len(suffix)], lang
    return assignment, ENGLISH


def lessons() -> list[str]:
    """The English lessons: the one source every edition is built from."""
    return [a for a in assignments() if edition_of(a)[1] == ENGLISH]


def edition(lesson: str, lang: str) -> str:
    return lesson if lang == ENGLISH else lesson + EDITIONS[lang]


def install_spec(repository: str, branch: str) -> str:
    """What pip installs in Colab: the course's packages straight from the student edition's repository."""
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


def badges_markdown(repository: str, branch: str, assignment: str, tr=None) -> str:
    tr = tr or _english()
    path = release_path(assignment)
    badges = []
    if url := colab_url(repository, branch, path):
        badges.append(f"[![Open In Colab]({COLAB_BADGE})]({url})")
    if url := binder_url(repository, branch, path):
        badges.append(f"[![Launch Binder]({BINDER_BADGE})]({url})")
    if not badges:
        return tr.gettext(
            "*This copy of the course comes from `{repository}`, which has no public page to open it from.*"
        ).format(repository=repository)
    return " ".join(badges)


def install_cell_source(repository: str, branch: str, lang: str = ENGLISH, tr=None) -> str:
    """The install cell; an edition's also sets the language of the self-check and the explorers."""
    tr = tr or _english()
    source = (
        "# "
        + tr.gettext("Colab, or any Python without this course: install the course's helper packages first.")
        + "\n"
        "# "
        + tr.gettext("Everywhere else (JupyterLab from the course, Binder, the graders) this cell does nothing.")
        + "\n"
        "import importlib\n"
        "import importlib.util\n"
        "\n"
        'if importlib.util.find_spec("gradlessons") is None or importlib.util.find_spec("autograder") is None:\n'
        f'    %pip install --quiet "{install_spec(repository, branch)}"\n'
        "    importlib.invalidate_caches()"
    )
    if lang == ENGLISH:
        return source
    return source + (
        "\n\n# " + tr.gettext("The checks and the explorers of this lesson speak its language.") + "\n"
        "from autograder.i18n import use_language\n\n"
        f"use_language({lang!r})"
    )


def _locked_cell(kind: str, cell_id: str, source: str) -> dict:
    meta = {"grade": False, "grade_id": cell_id, "locked": True, "schema_version": 3, "solution": False, "task": False}
    cell = {"cell_type": kind, "id": cell_id, "metadata": {"nbgrader": meta}, "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


GENERATED_NOTICE = ("<!-- Made by `python3 course.py sync` from notebooks/{lesson}/{lesson}.ipynb and "
                    "locale/{lang}/LC_MESSAGES/{lesson}.po: edit those, never this notebook. -->\n")  # fmt: skip


def handed_out_cells(repository: str, branch: str, assignment: str) -> dict[str, str]:
    """The sources of the badge and install cells ``sync`` writes into an assignment, in its language."""
    lesson, lang = edition_of(assignment)
    tr = _english() if lang == ENGLISH else _translation(lang)
    notice = "" if lang == ENGLISH else GENERATED_NOTICE.format(lesson=lesson, lang=lang)
    binder = ""
    if lang != ENGLISH:
        binder = "\n\n" + tr.gettext(
            "*On Binder, JupyterLab's own menus and dialogs follow Settings → Language ({language}).*"
        ).format(language=LANGUAGE_NAMES[lang])
    return {
        "badges": notice + badges_markdown(repository, branch, assignment, tr) + binder,
        "install": install_cell_source(repository, branch, lang, tr),
    }


def synced_notebook(nb: dict, repository: str, branch: str, assignment: str, time: dict | None = None) -> dict:
    """The source notebook with its badge cell first and its install cell right after the title, then
    its time cell (made from ``time``, the lesson's account; without it, the time cell stays as it is).
    An edition's cells are in its language, and its badge cell says where it is made from."""

    lang = edition_of(assignment)[1]
    handed_out = ("badges", "install") if time is None else ("badges", "install", TIME_CELL)
    cells = [c for c in nb["cells"] if c.get("id") not in handed_out]
    made = handed_out_cells(repository, branch, assignment)
    badges = _locked_cell("markdown", "badges", made["badges"])
    install = _locked_cell("code", "install", made["install"])
    for cell in (badges, install):
        cell["source"] = _lines(cell["source"])
    told = [] if time is None else [time_cell(nb, time, lang)]
    cells = [_with_declared_points(cell) for cell in cells]
    return {**nb, "cells": [badges, cells[0], install, *told, *cells[1:]]}


@cache
def declared_points() -> dict[str, int]:
    """The points of every exercise's test cells, by grade id, as the exercises declare them
    (``gradexercises/<exercise>/__init__.py``): what `sync` writes into the lessons.  None in a course
    folder without the grader (a bare copy that only builds notebooks)."""
    if not os.path.isfile(os.path.join(ROOT, "autograder", "codes.py")):
        return {}
    return {grade_id: points for e in _codes_module().EXERCISES.values() for grade_id, points in e.points.items()}


def _with_declared_points(cell: dict) -> dict:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    points = declared_points().get(meta.get("grade_id"))
    if points is None or not meta.get("grade") or meta.get("points") == points:
        return cell
    return {**cell, "metadata": {**cell["metadata"], "nbgrader": {**meta, "points": points}}}


def readme_block(repository: str, branch: str) -> str:
    rows = ["| lesson | open it | em português |", "| --- | --- | --- |"]
    for lesson in lessons():
        editions = [badges_markdown(repository, branch, edition(lesson, lang)) for lang in EDITIONS]
        rows.append(f"| `{lesson}` | {badges_markdown(repository, branch, lesson)} | {' '.join(editions)} |")
    return "\n".join([README_START, *rows, README_END])


# ---- how long a lesson takes: an account of what a beginner does in it, cell by cell ----
#
# Time is told, not targeted: nothing holds a lesson to a number of minutes. The account counts what a
# beginner does with each cell of the *executed* lesson (what it printed and drew too), at the rates below,
# and `sync` writes the result into each lesson (its `time` cell) and the README. The rates are a
# beginner's: technical English, often not the reader's first language, and new code.
READING_WORDS_PER_MINUTE = 120  # prose, quick-check questions and their feedback, the explorers' guide steps
SECONDS_PER_CODE_LINE = 6  # reading one non-blank line of code before running it
SECONDS_PER_RUN = 10  # running a code cell and finding what it printed
SECONDS_PER_OUTPUT_LINE = 4  # reading one printed line and comparing it with what the text says
SECONDS_PER_FIGURE = 30  # looking at a figure until it shows what the text says
SECONDS_PER_QUESTION = 45  # thinking about a quick-check question before answering it
SECONDS_PER_EXPLORER = 60  # a first look at an explorer's controls, before its guide
SECONDS_PER_GUIDE_STEP = 40  # one guide step: do what it asks, read its ✓ note, look at what changed
HANDED_OUT = ("badges", "install", "time")  # cells made by `sync`, not part of the lesson's text
TIME_CELL = "time"
# What a student never reads in a code cell: the solution (the student sees one line to replace
# instead) and the hidden tests.
_HIDDEN = re.compile(r"^[ \t]*### BEGIN (SOLUTION|HIDDEN TESTS)\b.*?^[ \t]*### END \1\b[^\n]*\n?", re.S | re.M)
_EXPLORER = re.compile(r"^from (gradlessons\.\w+) import (\w+Explorer)\b.*?^\2\(\)", re.S | re.M)


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
            if re.match(r"(\d+\.\s*)?(exercises|exercícios)\b", title):
                part = "exercises"
            elif re.match(r"(\d+\.\s*)?(going deeper|para ir além)\b", title):
                part = "deeper"
        parts[part].append(cell)
    return parts


def code_lines(source: str) -> int:
    """The non-blank lines a student reads in a code cell: a solution counts as the one line the
    student replaces, hidden tests count as nothing."""
    solutions = len(re.findall(r"^[ \t]*### BEGIN SOLUTION\b", source, re.M))
    return solutions + sum(1 for line in _HIDDEN.sub("", source).splitlines() if line.strip())


def words(text: str) -> int:
    """Words a student reads: a word has a letter or digit in it (markdown's `#`, `-` and `·` are not read)."""
    return len(re.findall(r"\S*\w\S*", text))


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def printed(cell: dict, widgets: dict | None = None) -> tuple[int, int]:
    """(lines of text, figures) that an executed code cell shows: its printed lines, the text of its
    result and errors (one line each: the course's errors show one), and its images, also those shown
    in an ``ipywidgets.Output`` (``draw_graph``), read from the notebook's saved widget state
    (``widgets``: model id -> state). An explorer's widgets are counted as its guide, not here."""
    return _shown(cell.get("outputs", []), widgets or {})


def _shown(outputs: list[dict], widgets: dict) -> tuple[int, int]:
    lines = figures = 0
    for output in _joined_streams(outputs):
        kind = output.get("output_type")
        data = output.get("data", {})
        if kind == "stream":
            lines += len("".join(output.get("text", "")).strip("\n").splitlines())
        elif kind == "error":
            lines += 1
        elif any(key.startswith("image/") for key in data):
            figures += 1
        elif WIDGET_VIEW in data:
            model = widgets.get(data[WIDGET_VIEW].get("model_id"), {})
            if model.get("model_name") == "OutputModel":
                more = _shown(model.get("state", {}).get("outputs", []), widgets)
                lines, figures = lines + more[0], figures + more[1]
        elif "text/plain" in data:
            lines += len("".join(data["text/plain"]).strip("\n").splitlines())
    return lines, figures


def widget_state(nb: dict) -> dict:
    """The widget models an executed notebook saved (model id -> model): what its Output widgets show."""
    saved = nb.get("metadata", {}).get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    return saved.get("state", {})


def _joined_streams(outputs: list[dict]) -> list[dict]:
    """The outputs with consecutive pieces of one stream joined: a kernel may send one printed line in
    two messages, and a busy machine makes that more likely."""
    joined: list[dict] = []
    for output in outputs:
        last = joined[-1] if joined else {}
        if (
            output.get("output_type") == "stream"
            and last.get("output_type") == "stream"
            and last.get("name") == output.get("name")
        ):
            joined[-1] = {**last, "text": "".join(last["text"]) + "".join(output.get("text", ""))}
        else:
            joined.append(output)
    return joined


def _question(cell: dict) -> bool:
    return (
        cell["cell_type"] == "markdown"
        and re.match(r"\s*\*\*(Question|Pergunta)\b", "".join(cell["source"])) is not None
    )


def account(
    cells: list[dict], feedback_words: list[int], guides: dict[str, list[str]], widgets: dict | None = None
) -> dict:
    """What a beginner does in ``cells`` (executed, with their outputs), and the seconds it takes.

    ``feedback_words``: the words of each quick-check question's feedback, in order (read once each);
    ``guides``: the prompts of each explorer's guide steps, by the explorer's class name; ``widgets``: the
    notebook's saved widget state (model id -> state), for what ``Output`` widgets show."""
    done = dict.fromkeys(("words", "code_cells", "code_lines", "output_lines", "figures", "questions",
                          "feedback_words", "explorers", "guide_steps", "guide_words"), 0)  # fmt: skip
    for cell in cells:
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            done["words"] += words(text)
            if _question(cell):
                later = feedback_words[done["questions"] :]
                done["feedback_words"] += later[0] if later else 0
                done["questions"] += 1
            continue
        done["code_cells"] += 1
        done["code_lines"] += code_lines(text)
        explorers = _EXPLORER.findall(text)
        lines, figures = printed(cell, None if explorers else widgets)
        done["output_lines"] += lines
        done["figures"] += figures
        for _, name in explorers:
            steps = guides.get(name, [])
            done["explorers"] += 1
            done["guide_steps"] += len(steps)
            done["guide_words"] += sum(words(step) for step in steps)
    seconds = {
        "reading": 60 * (done["words"] + done["feedback_words"] + done["guide_words"]) / READING_WORDS_PER_MINUTE,
        "code": done["code_lines"] * SECONDS_PER_CODE_LINE + done["code_cells"] * SECONDS_PER_RUN,
        "output": done["output_lines"] * SECONDS_PER_OUTPUT_LINE + done["figures"] * SECONDS_PER_FIGURE,
        "questions": done["questions"] * SECONDS_PER_QUESTION,
        "explorers": done["explorers"] * SECONDS_PER_EXPLORER + done["guide_steps"] * SECONDS_PER_GUIDE_STEP,
    }
    total = sum(seconds.values())
    return {**done, "seconds": seconds, "minutes": max(1, round(total / 60)) if cells else 0}


def quiz_feedback_words(assignment: str) -> list[int]:
    """The words of each quick-check answer's explanation (`why`), in question order."""
    path = os.path.join(ROOT, "gradebox", "quizzes", f"{assignment}.json")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        quiz = json.load(f)
    return [words(quiz[key].get("why", "")) for key in sorted(quiz, key=lambda k: int(k[1:]))]


def explorer_guides(nb: dict) -> dict[str, list[str]]:
    """The prompts of the guide steps of every explorer the lesson starts, in the lesson's language
    (needs the course's packages)."""
    from autograder.i18n import speaking

    found = {}
    with speaking(language_of(nb)):
        for cell in nb["cells"]:
            for module, name in _EXPLORER.findall("".join(cell["source"])) if cell["cell_type"] == "code" else []:
                explorer = getattr(importlib.import_module(module), name)()
                found[name] = [step.prompt for step in explorer.state.guide.steps]
    return found


def lesson_time(assignment: str, executed: dict, guides: dict[str, list[str]]) -> dict:
    """The account of each part of an executed lesson: the core path, the exercises, Going deeper."""
    parts = _sections(executed)
    feedback = quiz_feedback_words(assignment)
    state = widget_state(executed)
    told, asked = {}, 0  # questions are numbered through the lesson: a Going deeper one reads its own answer
    for part, cells in parts.items():
        told[part] = account(cells, feedback[asked:], guides, state)
        asked += told[part]["questions"]
    return told


def _sections_named(nb: dict, tr=None) -> str:
    """'sections 1–9' for the numbered headings of the core path."""
    tr = tr or _english()
    numbers = [int(m) for c in _sections(nb)["core"] if c["cell_type"] == "markdown"
               for m in re.findall(r"^## (\d+)\.", "".join(c["source"]), re.M)]  # fmt: skip
    if len(numbers) < 2:
        return tr.gettext("the core path")
    return tr.gettext("the core path (sections {first}–{last})").format(first=min(numbers), last=max(numbers))


def _translation(lang: str):
    """course.po in ``lang`` (compiled by sync into course.mo), read with the standard library."""
    import course_i18n

    return course_i18n.course_translation(lang, ROOT)


def _english():
    import gettext

    return gettext.NullTranslations()


def number(n: int, lang: str = ENGLISH) -> str:
    """``n`` with the thousands separator a reader of ``lang`` expects (1,938 / 1.938)."""
    return f"{n:,}" if lang == ENGLISH else f"{n:,}".replace(",", ".")


def _counted(tr, lang: str, singular: str, plural: str, n: int) -> str:
    return tr.ngettext(singular, plural, n).format(n=number(n, lang))


def language_of(nb: dict) -> str:
    """The language a notebook is written in: an edition's says so in its metadata (set by `sync`)."""
    said = nb.get("metadata", {}).get("autograd_course", {})
    lang = said.get("language") if isinstance(said, dict) else None
    return lang if lang in EDITIONS else ENGLISH


def time_text(nb: dict, time: dict, lang: str | None = None) -> str:
    """The lesson's `time` cell: the minutes of each part and what the core path's minutes count, in
    ``lang`` (the notebook's own by default; its sentences come from locale/<lang>/LC_MESSAGES/course.po)."""
    lang = lang or language_of(nb)
    tr = _english() if lang == ENGLISH else _translation(lang)
    core, exercises, deeper = time["core"], time["exercises"], time["deeper"]

    def say(singular: str, plural: str, n: int) -> str:
        return _counted(tr, lang, singular, plural, n)

    counted = [
        say("reading {n} word of text", "reading {n} words of text", core["words"]),
        tr.gettext("reading and running {cells} ({lines})").format(
            cells=say("{n} code cell", "{n} code cells", core["code_cells"]),
            lines=say("{n} line", "{n} lines", core["code_lines"]),
        ),
        say("reading {n} printed line", "reading {n} printed lines", core["output_lines"])
        + (
            say(" and looking at {n} figure", " and looking at {n} figures", core["figures"]) if core["figures"] else ""
        ),
    ]
    if core["questions"]:
        counted.append(
            say(
                "thinking about {n} quick-check question and reading its answer",
                "thinking about {n} quick-check questions and reading their answers",
                core["questions"],
            )
        )
    if core["explorers"]:
        counted.append(say("the explorer's {n} guided step", "the explorer's {n} guided steps", core["guide_steps"]))
    exercises_cells = _sections(nb)["exercises"]
    solutions = sum(
        1 for c in exercises_cells if c["cell_type"] == "code" and "### BEGIN SOLUTION" in "".join(c["source"])
    )
    lines = [
        tr.gettext(
            "**Time.** About **{minutes}** for {part}, counted from what a beginner does in it: {counted}."
        ).format(
            minutes=say("{n} minute", "{n} minutes", core["minutes"]),
            part=_sections_named(nb, tr),
            counted="; ".join(counted),
        ),  # fmt: skip
        tr.gettext(
            "The exercises: about {minutes} to read and run, plus the time you take to write {functions}."
        ).format(
            minutes=say("{n} minute", "{n} minutes", exercises["minutes"]),
            functions=say("{n} function", "{n} functions", solutions),
        ),  # fmt: skip
    ]
    if deeper["minutes"]:
        lines[-1] += tr.gettext(" *Going deeper* (optional): about {minutes}.").format(
            minutes=say("{n} minute", "{n} minutes", deeper["minutes"]))  # fmt: skip
    return "\n".join(lines)


def time_cell(nb: dict, time: dict, lang: str | None = None) -> dict:
    cell = _locked_cell("markdown", TIME_CELL, time_text(nb, time, lang))
    cell["source"] = _lines(cell["source"])
    return cell


def course_python() -> str:
    """A Python with the course's packages: this one when it has them (an author's activated .venv, the
    tests), else .venv's, set up first if needed."""
    if all(importlib.util.find_spec(name) is not None for name in ("nbclient", "nbgrader", "gradlessons")):
        return sys.executable
    setup()
    return os.path.join(BIN, "python")


MEASURE = """
import json, sys
import nbformat
from nbclient import NotebookClient
sys.path.insert(0, sys.argv[1])
import course
nb = nbformat.read(sys.argv[2], as_version=4)
NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": sys.argv[3]}}).execute()
widgets = course.widget_state(nb)
shown = [o for c in nb.cells for o in c.get("outputs", [])]
shown += [o for m in widgets.values() for o in m.get("state", {}).get("outputs", [])]
for output in shown:
    for key in output.get("data", {}):
        if key.startswith("image/"):
            output["data"][key] = ""  # counted, not needed: the account only counts figures
json.dump({"executed": nb, "guides": course.explorer_guides(nb)}, sys.stdout)
"""


# Runs of the lessons, kept between `sync`s: a run is the slow part of an account (a kernel per lesson),
# and most syncs change no lesson (a new repository setting, a translation of another lesson).
CACHE_HOME = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
RUNS_CACHE = os.path.join(CACHE_HOME, "autograd-course", "lesson-runs")
# What a run's outputs can follow besides the lesson itself: the helpers the lessons import and the
# checks they call, and the versions installed from these files.
RUN_INPUTS = ("gradlessons", "gradebox", "gradexercises", "autograder", "requirements.txt")


def run_key(nb: dict) -> str:
    """What a lesson's run depends on, as a digest: its cells (not the ones `sync` writes around it),
    the script that runs it, the Python, and every file the run can read of the course's packages and
    pinned versions.  The same key is the same run, whichever copy of the course made it."""
    digest = hashlib.sha256()
    lesson = {**nb, "cells": [c for c in nb["cells"] if c.get("id") not in HANDED_OUT]}
    for part in (json.dumps(lesson, sort_keys=True), MEASURE, sys.version, _project_pins(), _inputs_digest()):
        digest.update(part.encode("utf-8") + b"\0")
    return digest.hexdigest()


def _run_inputs() -> list[str]:
    """Every file of ``RUN_INPUTS``, in the same order in every copy of the course."""
    paths = []
    for top in RUN_INPUTS:
        paths += [os.path.join(ROOT, top)] if os.path.isfile(os.path.join(ROOT, top)) else []
        for folder, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            paths += [os.path.join(folder, name) for name in files if not name.endswith(".pyc")]
    return sorted(paths, key=lambda p: os.path.relpath(p, ROOT))


_INPUTS_READ: dict[tuple, str] = {}  # the files' sizes and times -> the digest of their contents


def _inputs_digest() -> str:
    """The digest of what every file of ``RUN_INPUTS`` holds, read once for all the lessons of a
    `sync` (read again when a file's size or time changed: a test that edits one in between)."""
    paths = _run_inputs()
    stamp = tuple((p, os.stat(p).st_size, os.stat(p).st_mtime_ns) for p in paths)
    if stamp not in _INPUTS_READ:
        digest = hashlib.sha256()
        for path in paths:
            with open(path, "rb") as f:
                digest.update(os.path.relpath(path, ROOT).encode() + b"\0" + f.read() + b"\0")
        _INPUTS_READ.clear()
        _INPUTS_READ[stamp] = digest.hexdigest()
    return _INPUTS_READ[stamp]


def _project_pins() -> str:
    """What pyproject.toml says the course's packages need ([project]), and not its settings: a new
    repository in [tool.autograd-course] changes every badge, never what a lesson's run shows."""
    import tomllib

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f).get("project", {})
    needs = ("requires-python", "dependencies", "optional-dependencies")
    return json.dumps({key: project.get(key) for key in needs}, sort_keys=True)


def run_lesson(path: str, fresh: bool = False) -> dict:
    """The lesson at ``path`` run top to bottom in the course's environment (``MEASURE``'s output),
    from RUNS_CACHE when a run with the same ``run_key`` is there (unless ``fresh``)."""
    with open(path, encoding="utf-8") as f:
        key = run_key(json.load(f))
    cached = os.path.join(RUNS_CACHE, key + ".json")
    found = None if fresh else _kept_run(cached)
    if found is not None:
        return found
    # Two syncs, or two test processes, that need the same run at once: one runs the lesson, the other
    # waits for it and reads what it kept.
    with _held(os.path.join(RUNS_CACHE + ".locks", key)):
        found = None if fresh else _kept_run(cached)
        return found if found is not None else _run_and_keep(path, cached)


def _kept_run(cached: str) -> dict | None:
    """The run kept at ``cached``; None if there is none, or it is damaged (then it is run again and replaced)."""
    if not os.path.isfile(cached):
        return None
    try:
        with open(cached, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


@contextlib.contextmanager
def _held(lock: str):
    """An exclusive lock on the file ``lock`` while the block runs.  None where it cannot be taken (no
    fcntl, as on Windows; a home that cannot be written; a file system without locks): the block runs
    all the same, and two runs at once only cost time."""
    handle = None
    try:
        import fcntl

        os.makedirs(os.path.dirname(lock), exist_ok=True)
        handle = open(lock, "a")  # noqa: SIM115 - closed below, after the block
        fcntl.flock(handle, fcntl.LOCK_EX)
    except (ImportError, OSError):
        if handle is not None:
            handle.close()
            handle = None
    try:
        yield
    finally:
        if handle is not None:
            handle.close()  # closing the file releases the lock


def _run_and_keep(path: str, cached: str) -> dict:
    """Run the lesson at ``path`` (``MEASURE``) and keep the run at ``cached``, if the cache can be written."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run([course_python(), "-c", MEASURE, ROOT, path, scratch],
                              capture_output=True, text=True, cwd=scratch)  # fmt: skip
    if done.returncode != 0:
        sys.exit(f"course.py: {os.path.basename(path)} did not run top to bottom:\n{done.stderr[-3000:]}")
    found = json.loads(done.stdout)
    try:  # written whole or not at all: two syncs may finish the same lesson at once
        os.makedirs(RUNS_CACHE, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=RUNS_CACHE, delete=False) as f:
            json.dump(found, f)
        os.replace(f.name, cached)
    except OSError:
        pass  # no cache (a read-only home): the next sync runs the lesson again
    return found


def measure(assignment: str, fresh: bool = False) -> dict:
    """Run the source lesson top to bottom in the course's environment (or take the same run from
    RUNS_CACHE); its account (`lesson_time`)."""
    found = run_lesson(os.path.join(ROOT, "notebooks", assignment, f"{assignment}.ipynb"), fresh)
    return lesson_time(assignment, found["executed"], found["guides"])


def length_block(times: dict[str, dict]) -> str:
    rows = [
        "| lesson | core path: minutes | words | code cells (lines) | printed lines, figures | questions "
        "| explorer steps | exercises: minutes to read and run | Going deeper: minutes |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    rows += [length_row(assignment, time) for assignment, time in times.items()]
    return "\n".join([LENGTH_START, *rows, LENGTH_END])


def length_row(assignment: str, time: dict) -> str:
    """The README's line for one lesson's account."""
    core = time["core"]
    return (
        f"| `{assignment}` | {core['minutes']} | {core['words']:,} | {core['code_cells']} ({core['code_lines']}) "
        f"| {core['output_lines']}, {core['figures']} | {core['questions']} | {core['guide_steps']} "
        f"| {time['exercises']['minutes']} | {time['deeper']['minutes']} |"
    )


def rates_text() -> str:
    return (
        f"(text at {READING_WORDS_PER_MINUTE} words a minute; each code line {SECONDS_PER_CODE_LINE} s and each run "
        f"{SECONDS_PER_RUN} s; each printed line {SECONDS_PER_OUTPUT_LINE} s, each figure {SECONDS_PER_FIGURE} s; "
        f"{SECONDS_PER_QUESTION} s of thinking per question; {SECONDS_PER_EXPLORER} s per explorer and "
        f"{SECONDS_PER_GUIDE_STEP} s per guide step)"
    )


CODES = re.compile(r"(<!-- codes: ([\w ]+?) \(made by .*?-->\n).*?(<!-- /codes -->)", re.S)
EXERCISES_BLOCK = re.compile(r"(<!-- exercises \(made by .*?-->\n).*?(<!-- /exercises -->)", re.S)
CODES_DOC = os.path.join("docs", "codes.md")  # where the diagnosis-code tables live, written by `sync`


def _codes_module():
    """autograder/codes.py, loaded by path: plain data, so no torch (nor the course's venv) is needed."""
    spec = importlib.util.spec_from_file_location("_course_codes", os.path.join(ROOT, "autograder", "codes.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def codes_blocks(text: str) -> str:
    """``text`` (docs/codes.md) with every diagnosis-code table, and the table of the exercises, written
    again from autograder/codes.py (which reads the exercises' declarations, gradexercises/)."""
    codes = _codes_module()
    text = EXERCISES_BLOCK.sub(lambda m: f"{m[1]}{codes.exercises_table()}\n{m[2]}", text)
    return CODES.sub(lambda m: f"{m[1]}{codes.table(m[2].split())}\n{m[3]}", text)


SETTINGS_TABLES = re.compile(r"(<!-- settings: ([\w ]+?) \(made by .*?-->\n).*?(<!-- /settings -->)", re.S)
SETTINGS_DOC = os.path.join("docs", "instructor.md")  # where the settings tables live, written by `sync`


def settings_blocks(text: str) -> str:
    """``text`` (docs/instructor.md) with every settings table written again from autograder/settings.py."""
    from autograder.settings import table  # the standard library's only: no venv needed

    return SETTINGS_TABLES.sub(lambda m: f"{m[1]}{table(m[2].split())}\n{m[3]}", text)


def stats(extra: list[str]) -> int:
    """Run every lesson, then print the README's table and each part's account, activity by activity."""
    times = {assignment: measure(assignment) for assignment in assignments()}
    print(length_block(times).split("\n", 1)[1].rsplit("\n", 1)[0])
    print(rates_text())
    for assignment, time in times.items():
        for part, done in time.items():
            spent = ", ".join(f"{what} {seconds / 60:.1f}" for what, seconds in done["seconds"].items())
            print(f"{assignment} {part}: {done['minutes']} min ({spent})")
    return 0


def _dump(nb: dict) -> str:
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def sync(extra: list[str]) -> int:
    """Write the repository setting into every lesson, the student notebooks and the README, the
    diagnosis-code tables into docs/codes.md and the settings tables into docs/instructor.md."""
    unknown = [a for a in extra if a != "--rerun"]
    if unknown:
        sys.exit(f"course.py: sync takes no {unknown[0]!r}; its one option is --rerun (run every lesson again, "
                 f"even those whose run is kept in {RUNS_CACHE}).")  # fmt: skip
    fresh = "--rerun" in extra
    where = settings()  # the badges and the install cell open the student edition, never the sources
    repository, branch = where["student_repository"], where["student_branch"]
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
    settings_doc = os.path.join(ROOT, SETTINGS_DOC)
    settings_text = open(settings_doc, encoding="utf-8").read() if os.path.exists(settings_doc) else ""
    if not SETTINGS_TABLES.search(settings_text):
        sys.exit(f"course.py: {SETTINGS_DOC} has no settings table block (a line `<!-- settings: GROUP ... -->` ... "
                 "`<!-- /settings -->`).")  # fmt: skip
    import course_i18n

    if importlib.util.find_spec("babel") is None:  # the catalogues need Babel (requirements-dev.txt)
        python = course_python()
        if os.path.realpath(python) == os.path.realpath(sys.executable):
            sys.exit("course.py: sync needs Babel to build the translations: `python3 course.py install developer`.")
        return subprocess.call([python, os.path.abspath(__file__), "sync", *extra])
    started = clock.monotonic()
    changed = course_i18n.update_catalogues([*lessons(), "course", *course_i18n.PACKAGES], ROOT)
    write_editions()
    course_i18n.compile_packages(ROOT)
    times = {}
    for assignment in assignments():
        path = os.path.join(ROOT, "notebooks", assignment, f"{assignment}.ipynb")
        with open(path, encoding="utf-8") as f:
            nb = json.load(f)
        with open(path, "w", encoding="utf-8") as f:
            f.write(_dump(synced_notebook(nb, repository, branch, assignment)))
        times[assignment] = measure(assignment, fresh)
        with open(path, "w", encoding="utf-8") as f:
            f.write(_dump(synced_notebook(nb, repository, branch, assignment, times[assignment])))
    with open(readme, "w", encoding="utf-8") as f:
        text = block.sub(lambda _: readme_block(repository, branch), text, count=1)
        f.write(lengths.sub(lambda _: length_block(times), text, count=1))
    with open(codes_doc, "w", encoding="utf-8") as f:
        f.write(codes_blocks(codes_text))
    with open(settings_doc, "w", encoding="utf-8") as f:
        f.write(settings_blocks(settings_text))
    # The student notebooks come from the sources, through nbgrader as always.
    nbgrader = [course_python(), "-m", "nbgrader"]
    # nbgrader runs the `alembic` command of its own environment when it creates a gradebook: that
    # environment's bin goes first on PATH, also when its python was called without activating it.
    env = {**os.environ, "PATH": os.pathsep.join([os.path.dirname(nbgrader[0]), os.environ.get("PATH", "")])}
    # One nbgrader for every assignment ("*" matches each folder of notebooks/), not one start each.
    done = subprocess.run([*nbgrader, "generate_assignment", "*", "--force"], cwd=ROOT,
                          capture_output=True, text=True, env=env)  # fmt: skip
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n", file=sys.stderr)
        return done.returncode
    print(f"course.py: {len(assignments())} lessons and README.md now point at the student edition in {repository} "
          f"({branch}): build it with `python3 course.py student-edition` and push it there.")  # fmt: skip
    for path in changed:
        print(f"course.py: {os.path.relpath(path, ROOT)} follows the English now: translate what it marks.")
    print(f"course.py: sync took {clock.monotonic() - started:.0f} s.")
    return 0


def write_editions() -> list[str]:
    """Each lesson's editions, built from its English source and the catalogue of their language."""
    import course_i18n

    written = []
    for lesson in lessons():
        with open(os.path.join(ROOT, "notebooks", lesson, f"{lesson}.ipynb"), encoding="utf-8") as f:
            english = json.load(f)
        for lang in EDITIONS:
            catalog = course_i18n.read_catalog(course_i18n.po_path(lesson, lang, ROOT), lang)
            target = os.path.join(ROOT, "notebooks", edition(lesson, lang), f"{edition(lesson, lang)}.ipynb")
            if course_i18n.write_if_changed(
                target, _dump(course_i18n.translated(english, catalog, lesson, lang)).encode()
            ):
                written.append(target)
    return written


# ---- the student edition: what students may have, and nothing else ----
#
# This repository holds every solution and hidden test (notebooks/) and the instructor's tools, so no
# badge may open it.  `student-edition` builds what students may have from an allow-list, out of one
# commit of the course (never the working tree: an untracked file, a course secret or a gradebook
# cannot slip in), into a git repository of its own with one commit per build, which the instructor
# pushes to `student_repository` / `student_branch`: the repository every badge and install cell names.

STUDENT_EDITION = os.path.join("build", "student-edition")  # the default --out (build/ is ignored by git)
# The self-check, its job side and its exercises; the explorers.
STUDENT_PACKAGES = ("autograder", "gradebox", "gradexercises", "gradlessons")
STUDENT_FILES = ("environment.yml", "postBuild")  # Binder's build (repo2docker)
STUDENT_FOLDERS = ("lab",)  # the JupyterLab settings postBuild installs
LICENSES = ("LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING")
# The tables of pyproject.toml that `pip install` reads; the rest (pytest, ruff, these settings) is the instructor's.
STUDENT_PYPROJECT = re.compile(r"build-system|project(\..+)?|tool\.setuptools(\..+)?")
# nbgrader's markers: a file with a line that is one holds a solution or a hidden test.  The grader's own
# code may name them (it finds the hidden tests it runs); any other file may not even mention them.
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
MARKER_LINE = re.compile(r"#*\s*(?:BEGIN|END) (?:SOLUTION|HIDDEN TESTS)\b.*")
# The subject of every build's commit.  A repository whose last commit says something else is not an
# edition, and its files are never replaced (think of `--out .` run in the course itself).
EDITION_SUBJECT = "Student edition of the course at "
STUDENT_GITIGNORE = """\
# What Python, Jupyter and pip leave beside the lessons while you work.
__pycache__/
.ipynb_checkpoints/
.venv/
*.egg-info/
build/
"""


def _git(args: list[str], cwd: str, data: bytes | None = None) -> bytes:
    done = subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True, check=False)
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip()
        sys.exit(f"course.py: `git {' '.join(args[:3])}` failed in {cwd}: {message}")
    return done.stdout


def _commit_tree(commit: str) -> tuple[str, dict[str, tuple[str, str]]]:
    """The full id of ``commit`` of the course, and its files: path -> (mode, blob id)."""
    if subprocess.run(["git", "rev-parse", "--git-dir"], cwd=ROOT, capture_output=True).returncode != 0:
        sys.exit(f"course.py: the student edition is built from a commit of the course, and {ROOT} is not a git "
                 "repository: clone the course, or `git init` and commit it first.")  # fmt: skip
    found = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"], cwd=ROOT,
                           capture_output=True, text=True)  # fmt: skip
    if found.returncode != 0:
        sys.exit(f"course.py: {commit} is not a commit of the course.")
    sha = found.stdout.strip()
    tree = {}
    for entry in _git(["ls-tree", "-r", "-z", "--full-tree", sha], ROOT).split(b"\0"):
        if entry:
            meta, _, path = entry.decode("utf-8").partition("\t")
            mode, kind, oid = meta.split()
            tree[path] = (mode, oid if kind == "blob" else "")
    return sha, tree


def _blobs(oids: list[str]) -> list[bytes]:
    """The contents of git blobs, in order, read by one `git cat-file --batch`."""
    out = _git(["cat-file", "--batch"], ROOT, data="".join(f"{oid}\n" for oid in oids).encode())
    contents, at = [], 0
    for _ in oids:
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[2])
        contents.append(out[header_end + 1 : header_end + 1 + size])
        at = header_end + 1 + size + 1  # the content, then one newline
    return contents


def edition_paths(tree: dict[str, tuple[str, str]]) -> tuple[list[str], list[str]]:
    """The assignment ids (from their source notebooks), and the files of ``tree`` that go into the
    student edition: an allow-list, so a new folder of the instructor's stays out until named here."""
    ids = sorted({p.split("/")[1] for p in tree if re.fullmatch(r"notebooks/([^/]+)/\1\.ipynb", p)})
    chosen = []
    for path in sorted(tree):
        parts = path.split("/")
        if (
            path in STUDENT_FILES
            or path in LICENSES
            or parts[0] in STUDENT_PACKAGES + STUDENT_FOLDERS
            or (parts[0] == "release" and len(parts) > 2 and parts[1] in ids)
        ):
            chosen.append(path)
    return ids, chosen


def hidden_test_lines(nb: dict) -> set[str]:
    """The lines of a source notebook's hidden tests (between nbgrader's hidden-test markers)."""
    found, inside = set(), False
    for cell in nb.get("cells", []):
        for line in "".join(cell.get("source", "")).splitlines():
            stripped = line.strip()
            if "BEGIN HIDDEN TESTS" in stripped or "END HIDDEN TESTS" in stripped:
                inside = "BEGIN" in stripped
            elif inside and stripped:
                found.add(stripped)
        inside = False
    return found


def readable(path: str, data: bytes) -> str:
    """A file's text as a reader sees it: a notebook's JSON, then its cells' sources and printed outputs
    (in the JSON, a line of code sits between quotes with its own quotes escaped)."""
    text = data.decode("utf-8", errors="replace")
    if not path.endswith(".ipynb"):
        return text
    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError):
        return text
    shown = [text]
    for cell in cells if isinstance(cells, list) else []:
        shown.append("".join(cell.get("source", "")))
        for out in [o for o in cell.get("outputs", []) if isinstance(o, dict)]:
            data = out.get("data", {}) if isinstance(out.get("data"), dict) else {}
            shown += ["".join(out.get("text", "")), *("".join(data.get(k, "")) for k in ("text/plain", "text/html"))]
    return "\n".join(shown)


def leaks(files: dict[str, bytes], hidden: set[str]) -> list[str]:
    """Every file of the edition that holds a line of a hidden test or a line that is an nbgrader marker,
    or that mentions a marker at all outside the course's packages."""
    found = []
    for path, data in sorted(files.items()):
        text = readable(path, data)
        lines = {line.strip() for line in text.splitlines()}
        found += [f"{path} holds nbgrader's marker `{line}`" for line in sorted(lines) if MARKER_LINE.fullmatch(line)]
        if path.split("/")[0] not in STUDENT_PACKAGES:
            found += [f"{path} holds nbgrader's `{marker}`" for marker in MARKERS if marker in text]
        found += [f"{path} holds the hidden test line `{line}`" for line in sorted(hidden & lines)]
    return found


def student_pyproject(text: str) -> str:
    """``text`` (the course's pyproject.toml) with only the tables `pip install` reads: [build-system],
    [project...] and [tool.setuptools...].  The comment lines right above a table's header go with it."""
    kept: list[str] = []
    pending: list[str] = []  # comment and blank lines, not yet known to belong to the table above or below
    keep = True
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            pending.append(line)
            continue
        header = re.fullmatch(r"\[\[?\s*([^\]\s]+)\s*\]\]?\s*(#.*)?", stripped)
        if header:
            blank = max((i for i, x in enumerate(pending) if not x.strip()), default=-1)
            kept += pending[: blank + 1] if keep else []  # up to the last blank line: the table above's
            keep = STUDENT_PYPROJECT.fullmatch(header[1]) is not None
            kept += pending[blank + 1 :] + [line] if keep else []  # right above the header: this table's
        elif keep:
            kept += pending + [line]
        pending = []
    kept += pending if keep else []
    return re.sub(r"\n{3,}", "\n\n", "".join(kept)).strip() + "\n"


def _title(nb: dict, assignment: str) -> str:
    for cell in nb.get("cells", []):
        heading = re.search(r"^# (.+)$", "".join(cell.get("source", "")), re.M)
        if cell.get("cell_type") == "markdown" and heading:
            return heading[1].strip()
    return assignment


STUDENT_README = """\
# Autograd, hands on: a four-notebook PyTorch course

Four Jupyter lessons on PyTorch's autograd, each with an explorer to click through, a quick check and
exercises that check themselves: run a test cell and it says what your function does, and how to fix it.

{lessons}

## How to run a lesson

- **Colab**: click the lesson's *Open in Colab* badge, then *Runtime → Run all*. The first code cell
  installs the course's helper packages from this repository.
- **Binder**: click the lesson's *Launch Binder* badge: JupyterLab opens on the lesson. Binder does not
  keep your work: download your notebook before you leave.
- **Your own machine** (Linux or macOS, Python 3.10 or newer), from a clone of this repository:

  ```bash
  python3 -m venv .venv
  .venv/bin/pip install . jupyterlab
  .venv/bin/jupyter lab {first}
  ```

  or, with conda and the versions the graders use: `conda env create -f environment.yml`,
  `conda activate autograd-course`, `pip install --no-deps .`, then `jupyter lab`.

## How a lesson goes

Run the cells from the top. The **core path** comes first (short sections, the explorer, a recap and a
quick check; the lesson's *Time* cell says how long it takes), then the graded exercises, then optional
*Going deeper* sections. Answer a quick-check question by replacing `raise NotImplementedError()` with
your letter; the cell below says at once whether it is right. Each exercise has a test cell that prints
✅ passed, or ❌ not passed yet with the mistake and how to fix it. The graders run more scenarios than
the test cells show: a function that does what the exercise asks passes them all.

## How to hand in

Save the notebook and hand in the `.ipynb` file the way your instructor says: JupyterLab's *Assignment
List* (*Submit*) on a course server, or your learning-management system (in Colab: *File → Download →
Download .ipynb*). Keep the file name, write your code in the answer cells and leave the other cells as
they are: the graders put back any cell that was changed.
"""


def student_readme(repository: str, branch: str, lessons: dict[str, str]) -> str:
    """The student edition's README: the lessons (id -> title) with their badges, how to run them, how to
    hand in; nothing of the instructor's."""
    rows = ["| lesson | open it |", "| --- | --- |"]
    rows += [f"| {title} | {badges_markdown(repository, branch, a)} |" for a, title in lessons.items()]
    return STUDENT_README.format(lessons="\n".join(rows), first=release_path(next(iter(lessons))))


def edition_files(commit: str = "HEAD") -> tuple[str, dict, dict[str, tuple[bytes, bool]]]:
    """The full id of ``commit``, its settings, and the student edition built from it: path -> (content,
    executable).

    Refuses (with the reason) when a release notebook is missing, out of step with the student settings
    (sync was not run and committed), or when any file holds a solution marker or a hidden test's line."""
    sha, tree = _commit_tree(commit)
    ids, chosen = edition_paths(tree)
    if not ids:
        sys.exit(f"course.py: commit {sha[:12]} has no lesson (notebooks/<id>/<id>.ipynb).")
    links = [p for p in chosen if tree[p][0] not in ("100644", "100755")]
    if links:
        sys.exit(f"course.py: the student edition holds plain files only, and these are not: {', '.join(links)}.")
    missing = [release_path(a) for a in ids if release_path(a) not in tree]
    if missing:
        sys.exit(f"course.py: commit {sha[:12]} has no {', '.join(missing)}: run `python3 course.py sync` and "
                 "commit the student notebooks.")  # fmt: skip
    sources = [f"notebooks/{a}/{a}.ipynb" for a in ids]
    contents = _blobs([tree[p][1] for p in [*chosen, *sources, "pyproject.toml"]])
    files = {p: (data, tree[p][0] == "100755") for p, data in zip(chosen, contents)}
    *source_data, pyproject = contents[len(chosen) :]
    where = settings(pyproject.decode("utf-8"))
    repository, branch = where["student_repository"], where["student_branch"]
    lessons = {}
    for assignment in ids:
        nb = json.loads(files[release_path(assignment)][0])
        cells = {c.get("id"): "".join(c.get("source", "")) for c in nb.get("cells", [])}
        made = handed_out_cells(repository, branch, assignment)
        if (cells.get("badges"), cells.get("install")) != (made["badges"], made["install"]):
            sys.exit(f"course.py: {release_path(assignment)} at commit {sha[:12]} does not point at the student "
                     f"edition ({repository}, branch {branch}): run `python3 course.py sync` and commit.")  # fmt: skip
        lessons[assignment] = _title(nb, assignment)
    files["pyproject.toml"] = (student_pyproject(pyproject.decode("utf-8")).encode(), False)
    files["README.md"] = (student_readme(repository, branch, lessons).encode(), False)
    files[".gitignore"] = (STUDENT_GITIGNORE.encode(), False)
    hidden = set().union(*(hidden_test_lines(json.loads(data)) for data in source_data))
    found = leaks({p: data for p, (data, _) in files.items()}, hidden)
    if found:
        sys.exit(f"course.py: no student edition from commit {sha[:12]}: " + "; ".join(found[:10]))
    return sha, where, files


def _edition_folder(out: str, branch: str) -> None:
    """Make ``out`` ready for a build: new, empty, or a clean git repository of an earlier edition (its
    history is kept).  Anything else is refused, and nothing in it is touched."""
    if os.path.lexists(out) and not os.path.isdir(out):
        sys.exit(f"course.py: {out} exists and is not a folder: choose another --out.")
    if not os.path.exists(out) or not os.listdir(out):
        os.makedirs(out, exist_ok=True)
        _git(["init", "-q", "-b", branch], out)
        return
    if not os.path.isdir(os.path.join(out, ".git")):
        sys.exit(f"course.py: {out} exists and is not a student edition (no git repository of its own): choose "
                 "another --out, or remove it. Nothing was changed.")  # fmt: skip
    last = subprocess.run(["git", "log", "-1", "--format=%s"], cwd=out, capture_output=True, text=True)
    if last.returncode != 0:  # a repository with no commit yet: fine when it holds nothing else
        if os.listdir(out) != [".git"]:
            sys.exit(f"course.py: {out} is a git repository with no commit and files in it: choose another --out, "
                     "or remove it. Nothing was changed.")  # fmt: skip
        return
    if not last.stdout.startswith(EDITION_SUBJECT):
        sys.exit(f"course.py: {out} is a git repository whose last commit is not a student edition's "
                 f"(\"{last.stdout.strip()[:80]}\"): its files are not replaced. Choose another --out. Nothing was "
                 "changed.")  # fmt: skip
    changed = _git(["status", "--porcelain"], out).decode(errors="replace").splitlines()
    if changed:
        sys.exit(f"course.py: {out} has changes not committed ({'; '.join(changed[:5])}): a build replaces every "
                 "file, so commit or remove them first. Nothing was changed.")  # fmt: skip


def build_student_edition(out: str, commit: str = "HEAD") -> dict:
    """Build the student edition of ``commit`` into the git repository ``out``.  Returns the source commit
    (`source`), the edition's new commit (`edition`: None when nothing changed since the last build, and
    then no commit is made) and where it is published (`student_repository`, `student_branch`)."""
    sha, where, files = edition_files(commit)  # everything is checked before the folder is touched
    _edition_folder(out, where["student_branch"])
    for name in filter(None, _git(["ls-files", "-z"], out).decode().split("\0")):
        os.remove(os.path.join(out, name))  # the last edition's files; ignored ones (a .venv) stay
    for folder, _, names in sorted(os.walk(out), reverse=True):  # and the folders they leave empty
        if not names and not os.listdir(folder) and folder != out and os.sep + ".git" not in folder[len(out) :]:
            os.rmdir(folder)
    for path, (data, executable) in files.items():
        target = os.path.join(out, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
        os.chmod(target, 0o755 if executable else 0o644)
    _git(["add", "-A"], out)
    published = {"source": sha, "edition": None, **{k: where[k] for k in ("student_repository", "student_branch")}}
    if subprocess.run(["git", "diff", "--cached", "--quiet"], cwd=out).returncode == 0:
        return published
    identity = []
    for key, fallback in (("user.name", "course.py student-edition"), ("user.email", "student-edition@localhost")):
        if subprocess.run(["git", "config", key], cwd=out, capture_output=True).returncode != 0:
            identity += ["-c", f"{key}={fallback}"]
    message = (
        f"{EDITION_SUBJECT}{sha}\n\nBuilt by `python3 course.py student-edition` from that commit of the course's "
        "sources: the student notebooks (release/), the packages autograder, gradebox, gradexercises and gradlessons, "
        "Binder's files. "
        "No solution, hidden test or instructor's file is in it.\n"
    )
    _git([*identity, "commit", "-q", "-m", message], out)
    return {**published, "edition": _git(["rev-parse", "HEAD"], out).decode().strip()}


def student_edition(extra: list[str]) -> int:
    """`python3 course.py student-edition [--out DIR] [--commit COMMIT]`: build, commit, say how to publish."""
    import argparse

    parser = argparse.ArgumentParser(prog="course.py student-edition",
                                     description="Build what students may have into a git repository.")  # fmt: skip
    parser.add_argument("--out", default=os.path.join(ROOT, STUDENT_EDITION),
                        help=f"the edition's git repository (default: {STUDENT_EDITION} in the course)")  # fmt: skip
    parser.add_argument("--commit", default="HEAD", help="the course's commit to build from (default: HEAD)")
    args = parser.parse_args(extra)
    out = os.path.abspath(args.out)
    built = build_student_edition(out, args.commit)
    sha, made = built["source"], built["edition"]
    watched = ["notebooks", "release", "pyproject.toml", *STUDENT_PACKAGES, *STUDENT_FILES, *STUDENT_FOLDERS]
    dirty = _git(["status", "--porcelain", "--", *watched], ROOT).decode(errors="replace").splitlines()
    if dirty and args.commit == "HEAD":
        print(f"course.py: not committed, so not in this edition: {'; '.join(d.strip() for d in dirty[:8])}"
              + (" ..." if len(dirty) > 8 else ""))  # fmt: skip
    if made is None:
        print(f"course.py: the student edition in {out} is unchanged (built from {sha[:12]}); no new commit.")
    else:
        print(f"course.py: the student edition of {sha[:12]} is in {out} (commit {made[:12]}).")
    print(f"Publish it: git -C {out} push {built['student_repository']} HEAD:{built['student_branch']}")
    return 0


def main(argv: list[str]) -> int:
    commands = {"lab": lab, "test": test, "install": install, "sync": sync, "stats": stats,
                "student-edition": student_edition}  # fmt: skip
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if not argv or argv[0] not in commands:
        print(__doc__)
        return 2
    return commands[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
