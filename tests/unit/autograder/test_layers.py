"""The boundary shows in the imports: the sandbox imports nothing of the grader above its limits, a
job imports nothing that knows a right answer, and what the sandbox hides is exactly that."""

import ast
import os

import pytest

from tests.conftest import ROOT

PACKAGE = os.path.join(ROOT, "autograder")
GRADER_ONLY = ("autograder.judge", "autograder.grading", "autograder.diagnose", "autograder.verdict",
               "autograder.codes", "autograder.cli")  # fmt: skip


def _imports(path: str, package: str) -> set[str]:
    """Every module ``path`` imports, absolute, wherever in the file (top level or in a function)."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _modules(folder: str) -> list[tuple[str, str]]:
    found = []
    for top, _, files in os.walk(os.path.join(PACKAGE, folder)):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(top, name)
                module = os.path.relpath(path[:-3], ROOT).replace(os.sep, ".")
                package = module if name == "__init__.py" else module.rsplit(".", 1)[0]
                found.append((path, package.removesuffix(".__init__")))
    return found


@pytest.mark.parametrize("path, package", _modules("sandbox"), ids=lambda v: os.path.basename(v) if "/" in v else "")
def test_sandbox_imports_only_itself(path, package):
    outside = {
        m for m in _imports(path, package) if m.startswith("autograder") and not m.startswith("autograder.sandbox")
    }
    assert outside == set(), f"{path} imports {sorted(outside)}"


@pytest.mark.parametrize(
    "path, package", _modules("jobs") + _modules("exercises"), ids=lambda v: os.path.basename(v) if "/" in v else ""
)
def test_job_imports_no_answers(path, package):
    known = {m for m in _imports(path, package) if m.startswith(GRADER_ONLY)}
    assert known == set(), f"{path} imports {sorted(known)}"


def test_sandbox_hides_grader_only():
    from autograder.jobs import hidden_paths

    hidden = {os.path.relpath(p, PACKAGE) for p in hidden_paths()}
    expected = {m.split(".", 1)[1].replace(".", os.sep) for m in GRADER_ONLY}
    assert {h.removesuffix(".py") for h in hidden} >= expected
    for name in hidden:
        assert os.path.lexists(os.path.join(PACKAGE, name))


def test_exercises_have_job_and_judge():
    from autograder import exercises, judge

    assert set(exercises.EXERCISES) == set(judge.JUDGES) and len(judge.JUDGES) == 12
    for name, module in judge.JUDGES.items():
        assert callable(module.schema) and callable(module.judge), name
        assert not hasattr(exercises.get(name), "judge"), name
