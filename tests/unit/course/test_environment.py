"""requirements.txt (pip: the student set) and environment.yml (Binder, conda-forge) name the same versions;
what only instructors need is pinned once, in requirements-instructor.txt, and Binder goes without it."""

import ast
import glob
import importlib.metadata
import importlib.util
import json
import os
import re
import sys

import nbformat
import yaml

from tests.conftest import ROOT

# conda-forge spells a few packages differently from PyPI.
CONDA_NAME = {"torch": "pytorch"}
OWN_PACKAGES = ("autograder", "gradebox", "gradexercises", "gradlessons")
# Pinned for pip but not for Binder: what only an instructor's `python -m autograder publish` needs
# (students never publish, and pylti1p3 is a PyPI package); requirements-instructor.txt says so too.
INSTRUCTOR_ONLY = {"pylti1p3", "pyjwt", "jwcrypto", "cryptography"}
# Each role's requirement file (course.py's REQUIREMENTS): student, instructor, hub, developer.
ROLE_FILES = ("requirements.txt", "requirements-instructor.txt", "hub/requirements.txt", "requirements-dev.txt")


def pip_pins(name="requirements.txt") -> dict[str, str]:
    pins = {}
    for line in open(os.path.join(ROOT, name)):
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-r"):
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)(?:\[[\w,]+\])?==([\w.]+)", line)
        assert match, f"{name}: {line!r} is not pinned with =="
        pins[match.group(1).lower()] = match.group(2)
    return pins


def conda_pins() -> dict[str, str]:
    with open(os.path.join(ROOT, "environment.yml")) as f:
        env = yaml.safe_load(f)
    pins = {}
    for dep in env["dependencies"]:
        if isinstance(dep, str) and dep not in ("pip",):
            name, _, rest = dep.partition("=")
            pins[name.lower()] = rest.split("=")[0]
        elif isinstance(dep, dict):  # `- pip: [...]`: what conda-forge does not have, pinned as pip pins it
            for line in dep.get("pip", []):
                name, _, version = line.partition("==")
                pins[name.lower()] = version
    return pins


def test_torch_pin_has_local_cpu_wheel():
    assert pip_pins()["torch"] == "2.13.0"


def test_pip_pins_match_env_yml():
    conda = conda_pins()
    for name, version in pip_pins().items():
        assert conda.get(CONDA_NAME.get(name, name)) == version, name


def test_env_yml_pins_nothing_extra():
    pip = {CONDA_NAME.get(n, n) for n in pip_pins()}
    assert set(conda_pins()) - {"python"} == pip


def test_instructor_pins_off_binder_and_off_the_student_set():
    assert set(pip_pins("requirements-instructor.txt")) == INSTRUCTOR_ONLY
    assert not INSTRUCTOR_ONLY & set(conda_pins())
    assert not INSTRUCTOR_ONLY & set(pip_pins())


def test_binder_gets_cpu_pytorch():
    with open(os.path.join(ROOT, "environment.yml")) as f:
        env = yaml.safe_load(f)
    assert env["channels"][0] == "conda-forge"
    assert "pytorch=2.13.0=cpu*" in env["dependencies"]


def imported_top_level_modules() -> set[str]:
    """Every top-level module the course's packages and notebooks import (stdlib excluded)."""
    found = set()

    def scan(source: str) -> None:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])

    for package in OWN_PACKAGES:
        for path in glob.glob(os.path.join(ROOT, package, "**", "*.py"), recursive=True):
            scan(open(path, encoding="utf-8").read())
    for path in glob.glob(os.path.join(ROOT, "notebooks", "*", "*.ipynb")):
        for cell in json.load(open(path, encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                lines = "".join(cell["source"]).splitlines()
                scan("\n".join(line for line in lines if not line.lstrip().startswith(("%", "!"))))
    return {m for m in found if m not in sys.stdlib_module_names and m not in OWN_PACKAGES}


def test_every_import_is_pinned():
    distributions = importlib.metadata.packages_distributions()
    pinned, conda = pip_pins() | pip_pins("requirements-instructor.txt"), conda_pins()
    for module in sorted(imported_top_level_modules()):
        names = {d.lower() for d in distributions.get(module, [module])}
        assert names & set(pinned), f"{module} is imported but none of {names} is pinned (requirements*.txt)"
        if names & INSTRUCTOR_ONLY:
            continue
        assert {CONDA_NAME.get(n, n) for n in names} & set(conda), f"{module} is missing from environment.yml"


def test_tests_run_on_pinned_versions():
    pinned = {name: version for file in ROLE_FILES for name, version in pip_pins(file).items()}
    for name, version in pinned.items():
        installed = importlib.metadata.version(name).split("+")[0]  # torch reports 2.13.0+cpu
        assert installed == version, f"{name}: {installed} installed, {version} pinned"


def unwanted() -> tuple[str, ...]:
    spec = importlib.util.spec_from_file_location("course_script", os.path.join(ROOT, "course.py"))
    course = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(course)
    return course.UNWANTED


def test_unwanted_packages_removed():
    """course.py setup removes what it lists in UNWANTED, and nbformat still validates without it."""
    for name in unwanted():
        try:
            importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        raise AssertionError(f"{name} is installed, though course.py setup removes it")
    nbformat.validate(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")]))


def test_image_removes_unwanted_too():
    with open(os.path.join(ROOT, "hub", "image", "Containerfile")) as f:
        removed = re.findall(r"pip uninstall -y ([\w.\- ]+?) *\\?\n", f.read())
    assert removed == [" ".join(unwanted())]
