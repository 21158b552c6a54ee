"""One prefix for the course's settings, AUTOGRADER_; the old AUTOGRAD_ names still count, with a warning."""

import warnings

import pytest

from autograder.settings import renamed, setting


def test_new_name_read_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert setting("ROSTER", environ={"AUTOGRADER_ROSTER": "/srv/roster.toml"}) == "/srv/roster.toml"


def test_old_name_counts_and_warns():
    with pytest.warns(FutureWarning, match="AUTOGRAD_ROSTER is deprecated: set AUTOGRADER_ROSTER"):
        assert setting("ROSTER", environ={"AUTOGRAD_ROSTER": "/srv/old.toml"}) == "/srv/old.toml"


def test_new_name_wins_over_old():
    both = {"AUTOGRADER_DB_URL": "postgresql://new", "AUTOGRAD_DB_URL": "postgresql://old"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert setting("DB_URL", environ=both) == "postgresql://new"


def test_unset_gives_default():
    assert setting("EXCHANGE_KIND", "file", environ={}) == "file"
    assert setting("EXCHANGE_KIND", environ={}) is None


def test_renamed_copies_unless_set():
    old = {"AUTOGRAD_HUB_PORT": "8000", "AUTOGRAD_DB_URL": "old", "AUTOGRADER_DB_URL": "new", "PATH": "/bin"}
    with pytest.warns(FutureWarning, match="AUTOGRAD_HUB_PORT"):
        found = renamed(old)
    assert found["AUTOGRADER_HUB_PORT"] == "8000" and found["AUTOGRADER_DB_URL"] == "new" and found["PATH"] == "/bin"
