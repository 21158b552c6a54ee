"""`python -m autograder publish` in a .venv with the student set only (what `course.py lab` installs) says
which set it needs and the command that installs it, instead of an ImportError's traceback.

Beside autograder/cli.py (its publish command without the instructor's set)."""

import importlib.util

from autograder import cli


def test_publish_without_the_lti_client_names_the_instructors_set(monkeypatch, tmp_path, capsys):
    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pylti1p3" else found(name, *a))
    assert cli.main(["publish", "lesson3_zeroing_grad", "--course", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert "not installed here (no pylti1p3)" in error and "python3 course.py install instructor" in error
    assert list(tmp_path.iterdir()) == []  # nothing written: not even the ledger's folder


def test_publish_with_the_instructors_set_goes_past_the_check(tmp_path, capsys):
    assert cli.main(["publish", "lesson3_zeroing_grad", "--course", str(tmp_path)]) == 2
    assert "instructor's set" not in capsys.readouterr().err  # it stops later, at the missing settings
