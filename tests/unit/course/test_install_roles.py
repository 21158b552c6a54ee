"""Installs by role: `course.py lab` installs the student set, `course.py test` every set, `course.py install
ROLE` one role's; each role's requirement file names the one before it, so a pin is written once; and the
stamp in .venv tells which role it was set up for, so that a student's .venv gets the rest when the tests
run, and a developer's is not installed again when JupyterLab starts."""

import importlib.util
import json
import os
import re
import shutil
import subprocess
from types import SimpleNamespace

import pytest

from tests.conftest import ROOT
from tests.unit.course.test_environment import ROLE_FILES, pip_pins


def course_script():
    spec = importlib.util.spec_from_file_location("course_script", os.path.join(ROOT, "course.py"))
    course = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(course)
    return course


def included(name: str) -> set[str]:
    """``name`` and every requirement file it names with -r, as pip follows them (paths from ROOT)."""
    found = {name}
    for line in open(os.path.join(ROOT, name), encoding="utf-8"):
        if line.startswith("-r "):
            found |= included(os.path.normpath(os.path.join(os.path.dirname(name), line[3:].strip())))
    return found


def test_each_role_file_is_a_course_requirement_file_in_role_order():
    course = course_script()
    assert course.ROLES == ("student", "instructor", "hub", "developer")
    assert tuple(course.REQUIREMENTS[role] for role in course.ROLES) == ROLE_FILES


def test_each_roles_set_holds_the_set_of_the_role_before_it():
    course = course_script()
    for smaller, larger in zip(course.ROLES, course.ROLES[1:]):
        assert included(course.REQUIREMENTS[smaller]) < included(course.REQUIREMENTS[larger]), (smaller, larger)


def test_the_student_set_names_no_other_file_and_leaves_out_the_hub_the_tests_and_publishing():
    student = pip_pins("requirements.txt")
    assert included("requirements.txt") == {"requirements.txt"}
    assert {"torch", "jupyterlab", "ipywidgets", "matplotlib", "nbgrader"} <= set(student)
    for other in ("jupyterhub", "kubernetes", "playwright", "pytest", "ruff", "pylti1p3", "psycopg", "ngshare"):
        assert other not in student, other


def test_a_package_pinned_in_two_files_has_one_version_and_torch_is_2_13_0_everywhere():
    seen: dict[str, tuple[str, str]] = {}
    for name in (*ROLE_FILES, "hub/requirements-ngshare-exchange.txt", "requirements-installer.txt"):
        for package, version in pip_pins(name).items():
            first = seen.setdefault(package, (name, version))
            assert first[1] == version, f"{package}: {first[1]} in {first[0]}, {version} in {name}"
    assert seen["torch"] == ("requirements.txt", "2.13.0")


def fake_run(course, fails=(), pip_config=""):
    """subprocess.run recording each command in ``course.ran`` instead: one whose first word is in
    ``fails`` fails (raising when checked), ``pip config list`` prints ``pip_config``."""

    def run(command, check, **options):
        course.ran.append(command)
        failed = os.path.basename(command[0]) in fails
        if failed and check:
            raise subprocess.CalledProcessError(1, command)
        return SimpleNamespace(returncode=1 if failed else 0, stdout=pip_config if "config" in command else "")

    return run


@pytest.fixture
def recording_course_py(tmp_path, monkeypatch):
    """course.py with its .venv in tmp_path (a python file in bin/ so that no venv is created), its
    requirement files copied there, and every command it would run recorded instead of run; pip installs
    (COURSE_INSTALLER=pip) unless a test says otherwise."""
    course = course_script()
    root = tmp_path / "course"
    for name in (*ROLE_FILES, *course.NO_DEPS.values(), *course.INPUTS):
        os.makedirs(root / os.path.dirname(name), exist_ok=True)
        shutil.copyfile(os.path.join(ROOT, name), root / name)
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("")
    monkeypatch.setattr(course, "ROOT", str(root))
    monkeypatch.setattr(course, "VENV", str(venv))
    monkeypatch.setattr(course, "BIN", str(venv / "bin"))
    monkeypatch.setattr(course, "STAMP", str(venv / ".course-installed"))
    course.ran = []
    monkeypatch.setattr(course.subprocess, "run", fake_run(course))
    monkeypatch.setenv("COURSE_INSTALLER", "pip")
    return course


def installed_files(ran: list[list[str]]) -> list[str]:
    """The requirement files the recorded pip commands installed from (-r), in order."""
    return [os.path.basename(c[c.index("-r") + 1]) for c in ran if "-r" in c]


def test_lab_installs_the_student_set_only(recording_course_py, monkeypatch):
    monkeypatch.setattr(recording_course_py, "copy_student_notebooks", lambda lang="en": None)
    monkeypatch.setattr(recording_course_py.subprocess, "call", lambda command, cwd, env: 0)
    assert recording_course_py.lab(["--no-browser"]) == 0
    assert installed_files(recording_course_py.ran) == ["requirements.txt"]
    assert not any("--no-deps" in c for c in recording_course_py.ran)  # ngshare's exchange is the hub's
    assert recording_course_py.installed_role() == "student"


def test_lab_for_an_instructor_installs_the_instructors_set(recording_course_py, monkeypatch):
    monkeypatch.setattr(recording_course_py, "copy_student_notebooks", lambda lang="en": None)
    started = []
    monkeypatch.setattr(recording_course_py.subprocess, "call", lambda command, cwd, env: started.append(command) or 0)
    recording_course_py.lab(["--instructor"])
    assert installed_files(recording_course_py.ran) == ["requirements-instructor.txt"]
    assert "--instructor" not in started[0]  # a flag of course.py's, not JupyterLab's


def test_the_test_command_installs_every_set(recording_course_py, monkeypatch):
    monkeypatch.setattr(recording_course_py.subprocess, "call", lambda command, cwd: 0)
    recording_course_py.test(["--fast"])
    assert installed_files(recording_course_py.ran) == ["requirements-dev.txt", "requirements-ngshare-exchange.txt"]
    assert recording_course_py.ran[-1][-len(recording_course_py.UNWANTED) :] == list(recording_course_py.UNWANTED)
    assert recording_course_py.installed_role() == "developer"


def test_install_names_its_roles_and_refuses_another(recording_course_py, capsys):
    assert recording_course_py.install(["grader"]) == 2
    assert "student,instructor,hub,developer" in capsys.readouterr().err
    assert recording_course_py.ran == []
    assert recording_course_py.install(["hub"]) == 0
    assert installed_files(recording_course_py.ran) == ["requirements.txt", "requirements-ngshare-exchange.txt"]
    assert recording_course_py.ran[0][recording_course_py.ran[0].index("-r") + 1].endswith(
        os.path.join("hub", "requirements.txt")
    )


def test_a_students_venv_gets_the_rest_when_the_tests_run_and_is_then_left_alone(recording_course_py):
    recording_course_py.setup("student")
    recording_course_py.ran.clear()
    recording_course_py.setup("student")
    assert recording_course_py.ran == []  # set up, unchanged: nothing installed
    recording_course_py.setup("developer")
    assert installed_files(recording_course_py.ran)[0] == "requirements-dev.txt"
    recording_course_py.ran.clear()
    recording_course_py.setup("student")  # JupyterLab on a developer's .venv: a superset, nothing installed
    recording_course_py.setup("instructor")
    assert recording_course_py.ran == [] and recording_course_py.installed_role() == "developer"


def test_a_changed_student_pin_reinstalls_a_developers_venv_as_a_developers(recording_course_py):
    recording_course_py.setup("developer")
    recording_course_py.ran.clear()
    with open(os.path.join(recording_course_py.ROOT, "requirements.txt"), "a") as f:
        f.write("# a comment is a change too\n")
    recording_course_py.setup("student")
    assert installed_files(recording_course_py.ran)[0] == "requirements-dev.txt"  # it keeps what it had
    assert recording_course_py.installed_role() == "developer"


def test_a_changed_developer_pin_does_not_reinstall_a_students_venv(recording_course_py):
    recording_course_py.setup("student")
    recording_course_py.ran.clear()
    with open(os.path.join(recording_course_py.ROOT, "requirements-dev.txt"), "a") as f:
        f.write("# only the developers' set changed\n")
    recording_course_py.setup("student")
    assert recording_course_py.ran == []
    recording_course_py.setup("developer")
    assert installed_files(recording_course_py.ran)[0] == "requirements-dev.txt"


@pytest.mark.parametrize(
    "stamp",
    ["0123abcd" * 8, "", "[1, 2]", '{"role": "root", "fingerprint": "x"}', '{"fingerprint": "x"}'],
    ids=["a stamp from before roles", "empty", "not an object", "an unknown role", "no role"],
)
def test_a_stamp_setup_did_not_write_this_way_is_installed_again(recording_course_py, stamp):
    with open(recording_course_py.STAMP, "w") as f:
        f.write(stamp)
    recording_course_py.setup("student")
    assert installed_files(recording_course_py.ran) == ["requirements.txt"]
    with open(recording_course_py.STAMP) as f:
        assert json.load(f) == {"role": "student", "fingerprint": recording_course_py._fingerprint("student")}


def test_the_docstring_names_every_role_install_takes():
    course = course_script()
    usage = re.search(r"install ROLE\n(.*?)\n    python3", course.__doc__, re.S).group(1)
    assert all(role in usage for role in course.ROLES)


PIP_CONFIG = """:env:.find-links='/opt/wheels'
global.find-links='/opt/wheels'
global.extra-index-url='file:///opt/pypi/simple file:///opt/pypi-more/simple'
global.constraint='/etc/xdg/pip/constraints.txt'
global.timeout='60'
download.index-url='https://elsewhere.example/simple'
"""


def test_pips_settings_become_uvs_options_each_once():
    assert course_script().uv_options(PIP_CONFIG) == [
        "--find-links", "/opt/wheels",
        "--extra-index-url", "file:///opt/pypi/simple",
        "--extra-index-url", "file:///opt/pypi-more/simple",
        "--constraints", "/etc/xdg/pip/constraints.txt",
    ]  # fmt: skip


def test_uv_installs_the_set_where_pip_would_take_it_from(recording_course_py, monkeypatch):
    monkeypatch.delenv("COURSE_INSTALLER")
    (open(os.path.join(recording_course_py.BIN, "uv"), "w")).close()
    monkeypatch.setattr(recording_course_py.subprocess, "run", fake_run(recording_course_py, pip_config=PIP_CONFIG))
    recording_course_py.setup("student")
    assert installed_files(recording_course_py.ran) == ["requirements-installer.txt", "requirements.txt"]
    assert recording_course_py.ran[0][1:4] == ["-m", "pip", "install"]  # pip installs uv, pinned
    uv = next(c for c in recording_course_py.ran if os.path.basename(c[0]) == "uv")
    assert uv[1:3] == ["pip", "install"] and "unsafe-best-match" in uv
    assert " ".join(uv).count("--find-links /opt/wheels") == 1
    assert recording_course_py.installed_role() == "student"


def test_when_uv_fails_pip_installs_the_set(recording_course_py, monkeypatch, capsys):
    monkeypatch.delenv("COURSE_INSTALLER")
    (open(os.path.join(recording_course_py.BIN, "uv"), "w")).close()
    monkeypatch.setattr(recording_course_py.subprocess, "run", fake_run(recording_course_py, fails={"uv"}))
    recording_course_py.setup("student")
    assert installed_files(recording_course_py.ran) == [
        "requirements-installer.txt",
        "requirements.txt",
        "requirements.txt",
    ]
    assert (
        recording_course_py.ran[-2][1:4] == ["-m", "pip", "install"]
        and "pip installs it instead" in capsys.readouterr().out
    )
    assert recording_course_py.installed_role() == "student"


def test_when_uv_cannot_be_installed_pip_installs_the_set(recording_course_py, monkeypatch, capsys):
    monkeypatch.delenv("COURSE_INSTALLER")  # and no uv in .venv/bin after pip's attempt
    recording_course_py.setup("student")
    assert installed_files(recording_course_py.ran) == ["requirements-installer.txt", "requirements.txt"]
    assert all(os.path.basename(c[0]) != "uv" for c in recording_course_py.ran)
    assert "uv could not be installed" in capsys.readouterr().out


def test_uv_compiles_bytecode_from_the_instructors_set_on(recording_course_py, monkeypatch):
    """Grading imports the course's packages as accounts that cannot write bytecode into .venv."""
    uv = [os.path.join(recording_course_py.BIN, "uv"), "pip", "install"]
    student = recording_course_py.install_commands("student", uv)
    assert not any("--compile-bytecode" in c for c in student)  # the student's Python writes its own
    for role in ("instructor", "hub", "developer"):
        installs = [c for c in recording_course_py.install_commands(role, uv) if c[0] == uv[0]]
        assert installs and all("--compile-bytecode" in c for c in installs), role
    assert not any(
        "--compile-bytecode" in c
        for c in recording_course_py.install_commands("developer", recording_course_py.pip_install())
    )
