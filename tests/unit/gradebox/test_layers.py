"""The trust boundary is a shape: two packages, and the imports go one way.

``gradebox`` (the job side: all a sandboxed job may import) imports nothing of ``autograder`` (the
grader), wherever the import is: at the top of a module, inside a function, or as a string handed to
``importlib.import_module`` or ``__import__``.  The lessons' helpers, which jobs import too, do not
either, and neither do the exercises' job-side files (``gradexercises``: the declarations and each
``job.py``), which import no judge either.  The sandbox's server starts no module by a name: its
jobs are functions of a table of objects.  And the sandbox binds the job side, never the grader's
package, and of the exercises only their job-side files."""

from __future__ import annotations

import ast
import os
import re

import pytest

from tests.conftest import ROOT, requires_bwrap

JOB_SIDE = ("gradebox", "gradlessons")  # every package a job's file system holds whole
GRADER = "autograder"
JUDGE = re.compile(r"gradexercises\.[^.]+\.judge(\.|$)")  # an exercise's judge (a name or an f-string's pattern)
# The only imports in the job side whose module is not a literal, and why each cannot reach the grader.
DYNAMIC = {
    "gradebox/tamper/surfaces.py": "torch's modules, named in this module's own tables of literals",
    "gradebox/tamper/tags.py": "torch's modules, named in surfaces.py's tables of literals",
}
# Calls that import (or find, or run) a module named by their first argument.
IMPORTERS = {"import_module", "__import__", "find_spec", "run_module", "resolve_name"}


def _absolute(module: str | None, level: int, package: str) -> str:
    if not level:
        return module or ""
    parts = package.split(".")
    base = parts[: len(parts) - level + 1]
    return ".".join(base + ([module] if module else []))


def _called(node: ast.Call, aliases: dict[str, str]) -> str | None:
    """The importer ``node`` calls (by any spelling: ``importlib.import_module``, ``import_module``, or
    a name it was imported under: ``from importlib import import_module as load``), else None."""
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
    name = aliases.get(name, name)
    return name if name in IMPORTERS else None


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Every other name an importer is imported under in this module."""
    return {
        alias.asname: alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname and alias.name in IMPORTERS
    }


def _keyword(node: ast.Call, name: str) -> str | None:
    found = next((k.value for k in node.keywords if k.arg == name), None)
    return found.value if isinstance(found, ast.Constant) and isinstance(found.value, str) else None


def _literal(node: ast.expr, package: str) -> str | None:
    """The module name a string argument names: a literal, or the pattern of an f-string (``__name__``
    as the module's own package, any other value as ``*``: ``f"gradexercises.{name}.job"`` is
    ``gradexercises.*.job``); None when it cannot be known from the source."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value.value, ast.Name) and value.value.id == "__name__":
                parts.append(package)
            else:
                parts.append("*")
        return "".join(parts)
    return None


def imports(path: str, package: str) -> tuple[set[str], list[int]]:
    """Every module ``path`` imports, absolute, wherever in the file (top level or in a function, by a
    statement or by a call with a string), and the lines of calls whose name is not in the source."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    found, unknown, aliases = set(), [], _aliases(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node.module, node.level, package)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and _called(node, aliases):
            named = _literal(node.args[0], package) if node.args else None
            if named is not None and named.startswith("."):  # import_module(".judge", package="autograder")
                named = _keyword(node, "package") and _keyword(node, "package") + named
            if named is None:
                unknown.append(node.lineno)
            else:
                found.add(named)
    return found, unknown


def modules(top: str) -> list[tuple[str, str]]:
    """(path, the package its relative imports are relative to) of every module of ``top``."""
    found = []
    for folder, dirs, files in os.walk(os.path.join(ROOT, top)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                module = os.path.relpath(path[:-3], ROOT).replace(os.sep, ".")
                package = module.removesuffix(".__init__") if name == "__init__.py" else module.rsplit(".", 1)[0]
                found.append((path, package))
    return found


def _id(value: str) -> str:
    return os.path.relpath(value, ROOT) if os.sep in value else ""


def exercise_modules() -> list[tuple[str, str]]:
    """(path, package) of every file of ``gradexercises`` that a job's file system holds."""
    import gradexercises

    found = []
    for path in gradexercises.job_side_files():
        module = os.path.relpath(path[:-3], ROOT).replace(os.sep, ".")
        is_package = path.endswith("__init__.py")
        found.append((path, module.removesuffix(".__init__") if is_package else module.rsplit(".", 1)[0]))
    return found


JOB_MODULES = [m for top in JOB_SIDE for m in modules(top)] + exercise_modules()


def test_the_job_side_is_found():
    names = {os.path.relpath(p, ROOT) for p, _ in JOB_MODULES}
    assert {"gradebox/box/server.py", "gradebox/jobs/kernel_job.py", "gradebox/jobs/score_job.py",
            "gradexercises/train_step/job.py", "gradexercises/train_step/__init__.py", "gradexercises/_lesson3.py",
            "gradebox/tamper/watch.py", "gradlessons/i18n.py"} <= names  # fmt: skip
    assert not [name for name in names if name.endswith("judge.py")]


@pytest.mark.parametrize("path, package", JOB_MODULES, ids=_id)
def test_the_job_side_imports_nothing_of_the_grader(path, package):
    found, _ = imports(path, package)
    into_grader = sorted(m for m in found if m == GRADER or m.startswith(f"{GRADER}.") or JUDGE.match(m))
    assert into_grader == [], f"{os.path.relpath(path, ROOT)} imports {into_grader}"


@pytest.mark.parametrize("path, package", JOB_MODULES, ids=_id)
def test_every_import_by_a_name_not_in_the_source_is_known(path, package):
    _, unknown = imports(path, package)
    where = os.path.relpath(path, ROOT)
    assert not unknown or where in DYNAMIC, f"{where} imports by a name it computes, lines {unknown}"


@pytest.mark.parametrize("path, package", modules("gradebox/box") + [(os.path.join(ROOT, "gradebox", "serve.py"),
                                                                     "gradebox")], ids=_id)  # fmt: skip
def test_the_server_starts_no_module_by_a_name(path, package):
    """The sandbox (and its entry point) imports by statements only, and nothing of the job side but
    the wire and the bounds (the entry point: the profiles too): a request names a kind, which is data."""
    source = open(path, encoding="utf-8").read()
    assert "importlib" not in source and "__import__" not in source and "import_module" not in source
    found, unknown = imports(path, package)
    assert unknown == []
    allowed = ("gradebox.box", "gradebox.protocol", "gradebox.limits")
    if path.endswith("serve.py"):
        allowed += ("gradebox.jobs.profiles",)
    inside = {m for m in found if m.startswith("gradebox")} - {"gradebox"}
    assert {m for m in inside if not m.startswith(allowed)} == set(), path


def test_every_job_is_a_function_of_the_table():
    from gradebox.jobs import exercise_job, kernel_job, score_job
    from gradebox.jobs.profiles import PROFILES

    assert set(PROFILES) == {"kernel", "exercise"}
    assert PROFILES["kernel"].jobs == {"kernel": kernel_job.main, "score": score_job.main}
    assert PROFILES["exercise"].jobs == {"exercise": exercise_job.main}
    assert PROFILES["kernel"].preload is kernel_job.preload and PROFILES["exercise"].preload is exercise_job.preload


def test_the_walker_follows_every_kind_of_import(tmp_path):
    """The test above would catch each way of importing the grader (so it can fail)."""
    ways = [
        "import autograder.judge",
        "from autograder import judge",
        "def f():\n    from autograder.grading import score",
        "import importlib\nimportlib.import_module('autograder.judge')",
        "__import__('autograder.verdict')",
        "from importlib import import_module as load\nload('autograder.judge')",
        "import importlib\nimportlib.import_module('.judge', package='autograder')",
        "import importlib.util\nimportlib.util.find_spec('autograder.judge')",
        "import runpy\nrunpy.run_module('autograder.cli')",
        "import pkgutil\npkgutil.resolve_name('autograder.judge:JUDGES')",
    ]
    for text in ways:
        probe = tmp_path / "probe.py"
        probe.write_text(text)
        found, _ = imports(str(probe), "gradebox.jobs")
        assert any(m.startswith("autograder") for m in found), text
    for text in ["from gradexercises.train_step import judge", "from .judge import judge",
                 "import importlib\nimportlib.import_module(f'gradexercises.{name}.judge')"]:  # fmt: skip
        probe.write_text(text)
        found, _ = imports(str(probe), "gradexercises.train_step")
        assert any(JUDGE.match(m) for m in found), text
    probe.write_text("import importlib\nname = 'autograder'\nimportlib.import_module(name + '.judge')")
    assert imports(str(probe), "gradebox.jobs")[1] == [3]


def test_exercises_have_job_and_judge():
    import gradexercises
    from autograder import judge
    from gradebox import exercises

    assert set(exercises.EXERCISES) == set(judge.JUDGES) == set(gradexercises.EXERCISES) and len(judge.JUDGES) >= 12
    for name, module in judge.JUDGES.items():
        assert callable(module.schema) and callable(module.judge), name
        assert not hasattr(exercises.get(name), "judge"), name


@requires_bwrap
def test_bubblewrap_binds_the_job_side_and_nothing_of_the_grader(tmp_path):
    from autograder.host import bwrap

    args = bwrap.bwrap_command(str(tmp_path), ["true"])
    bound = [args[i + 1] for i, a in enumerate(args) if a in ("--ro-bind", "--bind")]
    covered = [args[i + 1] for i, a in enumerate(args) if a == "--tmpfs"]
    grader, job_side = bwrap.grader_folder(), os.path.join(ROOT, "gradebox")
    assert job_side in bound
    assert not [b for b in bound if os.path.commonpath([b, grader]) == grader], "the grader's package is bound"
    holding = [b for b in bound if os.path.commonpath([b, grader]) == b]
    assert (grader in covered) == bool(holding), "a bound folder holds the grader's package and it is not covered"


@requires_bwrap
def test_a_second_copy_of_the_grader_in_a_bound_folder_is_covered_too(tmp_path, monkeypatch):
    """A clone graded in place whose environment also holds an installed copy (``pip install .``, as
    Binder's postBuild does): the grader imported the clone's, and the environment's is as readable."""
    from autograder.host import bwrap

    site_packages = tmp_path / "env" / "lib" / "site-packages"
    (site_packages / "autograder" / "judge").mkdir(parents=True)
    (site_packages / "autograder" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(site_packages))
    unbound = tmp_path / "elsewhere"  # on the import path, but in no folder a job sees
    (unbound / "autograder").mkdir(parents=True)
    (unbound / "autograder" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(unbound))
    bound_before = bwrap.readable_paths
    monkeypatch.setattr(bwrap, "readable_paths", lambda: [*bound_before(), str(tmp_path / "env")])
    args = bwrap.bwrap_command(str(tmp_path / "scratch"), ["true"])
    covered = [args[i + 1] for i, a in enumerate(args) if a == "--tmpfs"]
    assert str(site_packages / "autograder") in covered
    assert str(unbound / "autograder") not in covered  # nothing to hide where no job can look


@requires_bwrap
def test_bubblewrap_binds_each_exercise_job_side_and_no_judge(tmp_path):
    """Of the exercises, a job's file system holds an empty folder and, bound onto it one by one, the
    declarations and the job sides: a judge is not there to read, whatever the job tries."""
    import gradexercises
    from autograder.host import bwrap

    args = bwrap.bwrap_command(str(tmp_path), ["true"])
    bound = [args[i + 1] for i, a in enumerate(args) if a in ("--ro-bind", "--bind")]
    folder = gradexercises.FOLDER
    assert args[args.index("--tmpfs", args.index(folder) - 1) + 1] == folder
    inside = sorted(os.path.relpath(b, folder) for b in bound if os.path.commonpath([b, folder]) == folder)
    assert "train_step/job.py" in inside and "train_step/__init__.py" in inside and "__init__.py" in inside
    assert [b for b in inside if b.endswith("judge.py") or "__pycache__" in b or b == "."] == []
    assert len([b for b in inside if b.endswith("/job.py")]) == len(gradexercises.EXERCISES)
    remount = next(i for i, a in enumerate(args) if a == "--remount-ro" and args[i + 1] == folder)
    binds = [i for i, a in enumerate(args) if a == "--ro-bind" and os.path.commonpath([args[i + 1], folder]) == folder]
    assert max(binds) < remount  # bound before the empty folder becomes read-only


@requires_bwrap
def test_a_second_copy_of_the_exercises_in_a_bound_folder_is_covered(tmp_path, monkeypatch):
    """The exercises installed into the environment besides the clone the grader imported: that copy's
    judges are as readable as the environment, so the whole copy is covered."""
    from autograder.host import bwrap

    site_packages = tmp_path / "env" / "lib" / "site-packages"
    (site_packages / "gradexercises" / "train_step").mkdir(parents=True)
    (site_packages / "gradexercises" / "__init__.py").write_text("")
    (site_packages / "gradexercises" / "train_step" / "judge.py").write_text("")
    monkeypatch.syspath_prepend(str(site_packages))
    bound_before = bwrap.readable_paths
    monkeypatch.setattr(bwrap, "readable_paths", lambda: [*bound_before(), str(tmp_path / "env")])
    args = bwrap.bwrap_command(str(tmp_path / "scratch"), ["true"])
    covered = [args[i + 1] for i, a in enumerate(args) if a == "--tmpfs"]
    assert str(site_packages / "gradexercises") in covered


@requires_bwrap
def test_copies_installed_below_a_bound_prefix_are_covered(tmp_path, monkeypatch):
    """The base interpreter a virtual environment was made from is bound whole (sys.base_prefix), and
    a venv's site module does not list its site-packages: a course also installed there (``pip
    install .`` into the system's Python) is found below the bound prefix and covered."""
    from autograder.host import bwrap

    base = tmp_path / "base"
    for package in ("autograder", "gradexercises"):
        (base / "lib" / "python3.11" / "site-packages" / package).mkdir(parents=True)
        (base / "lib" / "python3.11" / "site-packages" / package / "__init__.py").write_text("")
    bound_before = bwrap.readable_paths
    monkeypatch.setattr(bwrap, "readable_paths", lambda: [*bound_before(), str(base)])
    args = bwrap.bwrap_command(str(tmp_path / "scratch"), ["true"])
    covered = [args[i + 1] for i, a in enumerate(args) if a == "--tmpfs"]
    for package in ("autograder", "gradexercises"):
        assert str(base / "lib" / "python3.11" / "site-packages" / package) in covered, package
