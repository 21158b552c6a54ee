"""hub/install.py runs in the hub's Python environment whichever Python starts it: it finds the hub's
(--python, itself, the course folder's .venv, the Python beside jupyterhub on PATH, each only with
JupyterHub installed) and runs itself again with it, or stops and says the command to run.  The
environments here are real venvs; "JupyterHub installed" is a jupyterhub package in one."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import venv

import pytest

from tests.conftest import ROOT

INSTALL = os.path.join(ROOT, "hub", "install.py")
_spec = importlib.util.spec_from_file_location("hub_install_python", INSTALL)
install = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(install)

VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"


def make_environment(folder, with_hub: bool) -> str:
    """A venv at ``folder`` (JupyterHub "installed" if ``with_hub``); its python."""
    venv.create(folder, with_pip=False, symlinks=True)
    if with_hub:
        package = folder / "lib" / VERSION / "site-packages" / "jupyterhub"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (folder / "bin" / "jupyterhub").write_text("#!/bin/sh\n")
        (folder / "bin" / "jupyterhub").chmod(0o755)
    return str(folder / "bin" / "python")


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> install.Environment:
    """A Python with no JupyterHub, as the system's python3 on a hub machine."""
    python = make_environment(tmp_path_factory.mktemp("system") / "env", with_hub=False)
    return install.Environment.of(python)


@pytest.fixture(scope="module")
def course_with_hub(tmp_path_factory) -> str:
    """A course folder whose .venv is the hub's environment."""
    course = tmp_path_factory.mktemp("course")
    make_environment(course / ".venv", with_hub=True)
    (course / "nbgrader_config.py").write_text("")
    return str(course)


@pytest.fixture
def no_jupyterhub_on_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))


def test_a_python_reports_its_environment_and_whether_jupyterhub_is_there(plain, course_with_hub):
    hub = install.Environment.of(os.path.join(course_with_hub, ".venv", "bin", "python"))
    assert hub.prefix == os.path.realpath(os.path.join(course_with_hub, ".venv")) and hub.has_hub
    assert not plain.has_hub and plain.prefix != hub.prefix


def test_started_by_another_python_it_chooses_the_course_folders_hub_environment(
    plain, course_with_hub, no_jupyterhub_on_path
):
    chosen = install.hub_python(course_with_hub, None, plain, ["--course", course_with_hub])
    assert chosen == os.path.join(course_with_hub, ".venv", "bin", "python")


def test_started_by_the_hubs_python_it_runs_on(course_with_hub):
    hubs = install.Environment("/opt/autograd/bin/python", "/opt/autograd", has_hub=True)
    assert install.hub_python(course_with_hub, None, hubs, []) is None


def test_the_python_beside_jupyterhub_on_path_is_found(plain, tmp_path, monkeypatch):
    python = make_environment(tmp_path / "opt-autograd", with_hub=True)
    monkeypatch.setenv("PATH", f"{tmp_path / 'opt-autograd' / 'bin'}:/usr/bin:/bin")
    assert install.hub_python(str(tmp_path / "course"), None, plain, []) == python


def test_with_no_hub_environment_it_stops_and_says_the_command_to_run(plain, tmp_path, no_jupyterhub_on_path):
    course = tmp_path / "course"
    make_environment(course / ".venv", with_hub=False)  # a student's .venv: course.py's, not the hub's
    argv = ["--course", str(course), "--check"]
    with pytest.raises(install.WrongPython) as refused:
        install.hub_python(str(course), None, plain, argv)
    said = str(refused.value)
    assert f"/opt/autograd/bin/python {INSTALL} --course {course} --check" in said
    assert f"{course}/.venv/bin/python (no JupyterHub there)" in said and "--python" in said


def test_a_named_python_is_used_when_it_is_not_the_one_running(plain, course_with_hub):
    named = os.path.join(course_with_hub, ".venv", "bin", "python")
    assert install.hub_python(course_with_hub, named, plain, []) == named
    itself = install.Environment.of(named)
    assert install.hub_python(course_with_hub, named, itself, []) is None


@pytest.mark.parametrize("named, says", [("plain", "JupyterHub is not installed"), ("/nowhere/python", "does not run")])
def test_a_named_python_that_cannot_be_the_hubs_is_refused(plain, course_with_hub, named, says):
    named = plain.python if named == "plain" else named
    with pytest.raises(install.WrongPython, match=says):
        install.hub_python(course_with_hub, named, plain, [])


def test_running_again_passes_the_same_arguments_once(monkeypatch):
    started = []
    monkeypatch.delenv(install.REEXEC, raising=False)
    monkeypatch.setattr(install.os, "execv", lambda path, args: started.append((path, args)))
    install.run_with("/opt/autograd/bin/python", ["--course", "/srv/c", "--check"])
    assert started == [("/opt/autograd/bin/python", ["/opt/autograd/bin/python", INSTALL, "--course", "/srv/c",
                                                      "--check"])]  # fmt: skip
    assert os.environ[install.REEXEC] == "/opt/autograd/bin/python"
    with pytest.raises(install.WrongPython, match="still runs in"):  # never a loop of executions
        install.run_with("/opt/autograd/bin/python", ["--course", "/srv/c"])
    assert len(started) == 1


def test_the_system_python_starting_it_ends_in_the_hubs_environment(plain, course_with_hub, no_jupyterhub_on_path):
    """For real: the script, started by a Python with no JupyterHub, runs again in the course's .venv,
    which then finds the course folder's problems (here: no grader account) and changes nothing."""
    environment = {k: v for k, v in os.environ.items() if k != install.REEXEC}
    command = [plain.python, INSTALL, "--course", course_with_hub, "--grader", "nobody-of-this-course", "--check"]
    done = subprocess.run(command, capture_output=True, text=True, env=environment, cwd="/", timeout=120)
    hubs = os.path.join(course_with_hub, ".venv", "bin", "python")
    assert f"running again with the hub's Python, {hubs} (started by {plain.python})" in done.stderr
    assert "there is no account 'nobody-of-this-course'" in done.stderr
    assert done.returncode == 2
