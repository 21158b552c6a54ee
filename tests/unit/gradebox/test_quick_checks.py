"""The quick checks' keys (gradebox/quick_checks.py): a quiz is named, never found by a path."""

import json
import os

import pytest


def test_a_quiz_named_by_a_path_opens_no_file(tmp_path):
    """A check cell's assignment is read from the notebook: a name that walks out of the package's
    keys must not make the grader open a file there, even one that exists and holds a key."""
    from gradebox.quick_checks import QUIZ_DIR, known_quizzes, load_quiz

    planted = tmp_path / "planted.json"
    planted.write_text(json.dumps({"q1": {"answer_sha256": "0" * 64}}))
    walk = os.path.relpath(str(planted)[: -len(".json")], QUIZ_DIR)
    assert walk.startswith("..") and os.path.isfile(os.path.join(QUIZ_DIR, walk + ".json"))
    with pytest.raises(FileNotFoundError, match="no quick check is known"):
        load_quiz(walk)
    assert "lesson3_zeroing_grad" in known_quizzes() and load_quiz("lesson3_zeroing_grad")["q1"]
