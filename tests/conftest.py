import os
import shutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="session")
def root() -> str:
    return ROOT


@pytest.fixture(scope="session")
def bin_dir() -> str:
    """The folder of the Python running the tests, where nbgrader, jupyter and ruff live."""
    return os.path.dirname(sys.executable)


requires_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
