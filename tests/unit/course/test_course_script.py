"""course.py, the quick start's entry point: it never overwrites a student's own work."""

import importlib.util
import os

from tests.conftest import ROOT


def load_course(monkeypatch, tmp_path):
    spec = importlib.util.spec_from_file_location("course_script", os.path.join(ROOT, "course.py"))
    course = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(course)
    monkeypatch.setattr(course, "WORK", str(tmp_path / "my-work"))
    return course


def test_student_copies_made_once(monkeypatch, tmp_path):
    course = load_course(monkeypatch, tmp_path)
    course.copy_student_notebooks()
    mine = tmp_path / "my-work" / "lesson3_zeroing_grad.ipynb"
    assert mine.exists()
    mine.write_text("my answers")
    course.copy_student_notebooks()
    assert mine.read_text() == "my answers"


def test_unknown_command_prints_usage(monkeypatch, tmp_path, capsys):
    course = load_course(monkeypatch, tmp_path)
    assert course.main(["fly"]) == 2
    assert "python3 course.py lab" in capsys.readouterr().out


def test_root_lab_uses_allow_root(monkeypatch, tmp_path, capsys):
    course = load_course(monkeypatch, tmp_path)
    monkeypatch.setattr(course.os, "geteuid", lambda: 0)
    assert course.root_flags() == ["--allow-root"]
    assert "you are root" in capsys.readouterr().out
    monkeypatch.setattr(course.os, "geteuid", lambda: 1000)
    assert course.root_flags() == []


def test_lab_settings_turn_off_news(monkeypatch, tmp_path):
    import json
    import sys

    course = load_course(monkeypatch, tmp_path)
    target = course.install_lab_settings(str(tmp_path / "env"))
    settings = json.load(open(target))["@jupyterlab/apputils-extension:notification"]
    assert settings == {"fetchNews": "false", "checkForUpdates": False}
    assert target.endswith(os.path.join("share", "jupyter", "lab", "settings", "overrides.json"))
    # and the test environment itself has them (course.py's setup installed them)
    installed = os.path.join(sys.prefix, "share", "jupyter", "lab", "settings", "overrides.json")
    assert json.load(open(installed)) == json.load(open(os.path.join(ROOT, "lab", "overrides.json")))


def test_copy_has_kernel_language_info(monkeypatch, tmp_path):
    """JupyterLab marks a notebook modified as soon as its kernel's language_info differs from the
    stored one (tests/browser/test_learner_flow.py opens one): the copy gets this Python's version."""
    import json
    import platform
    import sys

    course = load_course(monkeypatch, tmp_path)
    monkeypatch.setattr(course, "BIN", os.path.dirname(sys.executable))
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps({"cells": [], "metadata": {"language_info": {"name": "python", "version": "0.0"}}}))
    course.with_local_python(str(path))
    info = json.loads(path.read_text())["metadata"]["language_info"]
    assert info == {**course.LANGUAGE_INFO, "version": platform.python_version()}
    released = json.load(open(os.path.join(ROOT, "release", "lesson1_requires_grad", "lesson1_requires_grad.ipynb")))
    assert set(released["metadata"]["language_info"]) == set(course.LANGUAGE_INFO)


def _pytest_command(monkeypatch, tmp_path, *arguments):
    course = load_course(monkeypatch, tmp_path)
    called = []
    monkeypatch.setattr(course, "setup", lambda role: None)
    monkeypatch.setattr(course.subprocess, "call", lambda command, cwd: called.append(command) or 0)
    assert course.test(list(arguments)) == 0
    return called[0][called[0].index("pytest") + 1 :]


def test_fast_is_unit_tier_two_workers(monkeypatch, tmp_path):
    command = _pytest_command(monkeypatch, tmp_path, "--fast", "-k", "roster")
    assert command[-1] == "tests/unit" and "--fast" not in command
    assert command[:4] == ["-n", "2", "--dist", "loadfile"] and ["-k", "roster"] == command[-3:-1]


def test_full_suite_keeps_chosen_n(monkeypatch, tmp_path):
    command = _pytest_command(monkeypatch, tmp_path, "-n", "0")
    assert "tests/unit" not in command and command.count("-n") == 1 and "--durations=15" in command


def test_lab_help_says_what_lab_does_and_where_options_go_and_installs_nothing(monkeypatch, tmp_path, capsys):
    course = load_course(monkeypatch, tmp_path)

    def no_setup(role):
        raise AssertionError(f"--help set up .venv for the {role}")

    monkeypatch.setattr(course, "setup", no_setup)
    assert course.main(["lab", "--help"]) == 0
    said = capsys.readouterr().out
    assert said.startswith("usage: python3 course.py lab [--instructor]") and "--no-browser" in said
    assert course.main(["--help"]) == 0 and "python3 course.py lab" in capsys.readouterr().out
