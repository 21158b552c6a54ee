"""Shared test setup for the gradlessons package."""

import gc
import sys
import warnings

import matplotlib
import pytest

# No display in CI: render with Agg, whatever MPLBACKEND says.
matplotlib.use("Agg")


def collect_what_earlier_tests_left() -> None:
    """Collect the garbage earlier tests in this worker left (a socket another file's client never
    closed, in a reference cycle) and say what it held as a plain warning, not the explorer's error."""
    left: list[str] = []
    hook, sys.unraisablehook = sys.unraisablehook, lambda found: left.append(f"{found.exc_value!r} in {found.object!r}")
    try:
        gc.collect()
    finally:
        sys.unraisablehook = hook
    for what in left:
        message = f"left by an earlier test, collected before this one: {what}"
        warnings.warn(pytest.PytestUnraisableExceptionWarning(message), stacklevel=2)


@pytest.fixture(autouse=True)
def warnings_are_errors():
    """Any warning raised while building or using an explorer fails the test (what earlier tests
    left for the garbage collector is collected first: it is not the explorer's)."""
    collect_what_earlier_tests_left()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield
