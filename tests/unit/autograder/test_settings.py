"""One prefix for the course's settings, AUTOGRADER_; the old AUTOGRAD_ names still count, with a warning."""

import warnings

import pytest

from autograder.settings import renamed, setting


def test_the_new_name_is_read_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert setting("ROSTER", environ={"AUTOGRADER_ROSTER": "/srv/roster.toml"}) == "/srv/roster.toml"


def test_the_old_name_still_counts_and_warns_with_the_new_one():
    with pytest.warns(FutureWarning, match="AUTOGRAD_ROSTER is deprecated: set AUTOGRADER_ROSTER"):
        assert setting("ROSTER", environ={"AUTOGRAD_ROSTER": "/srv/old.toml"}) == "/srv/old.toml"


def test_the_new_name_wins_over_the_old_one():
    both = {"AUTOGRADER_DB_URL": "postgresql://new", "AUTOGRAD_DB_URL": "postgresql://old"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert setting("DB_URL", environ=both) == "postgresql://new"


def test_an_unset_setting_gives_the_default():
    assert setting("EXCHANGE_KIND", "file", environ={}) == "file"
    assert setting("EXCHANGE_KIND", environ={}) is None


def test_renamed_copies_each_old_name_to_its_new_one_unless_set():
    old = {"AUTOGRAD_HUB_PORT": "8000", "AUTOGRAD_DB_URL": "old", "AUTOGRADER_DB_URL": "new", "PATH": "/bin"}
    with pytest.warns(FutureWarning, match="AUTOGRAD_HUB_PORT"):
        found = renamed(old)
    assert found["AUTOGRADER_HUB_PORT"] == "8000" and found["AUTOGRADER_DB_URL"] == "new" and found["PATH"] == "/bin"
