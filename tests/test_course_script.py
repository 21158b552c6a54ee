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


def test_student_copies_are_made_once_and_never_overwritten(monkeypatch, tmp_path):
    course = load_course(monkeypatch, tmp_path)
    course.copy_student_notebooks()
    mine = tmp_path / "my-work" / "lesson3_zeroing_grad.ipynb"
    assert mine.exists()
    mine.write_text("my answers")
    course.copy_student_notebooks()
    assert mine.read_text() == "my answers"


def test_an_unknown_command_prints_the_usage(monkeypatch, tmp_path, capsys):
    course = load_course(monkeypatch, tmp_path)
    assert course.main(["fly"]) == 2
    assert "python3 course.py lab" in capsys.readouterr().out
