"""Shared test setup for the gradlessons package."""

import warnings

import matplotlib
import pytest

# No display in CI: render with Agg, whatever MPLBACKEND says.
matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def warnings_are_errors():
    """Any warning raised while building or using an explorer fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield
