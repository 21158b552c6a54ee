import os
import shutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ASSIGNMENTS = ("lesson3_zeroing_grad",)

# nbgrader starts helpers such as `alembic` by name: the test interpreter's bin folder must be on
# PATH even when the suite is started as `.venv/bin/python -m pytest` without activating .venv.
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")


@pytest.fixture(scope="session")
def root() -> str:
    return ROOT


@pytest.fixture(scope="session")
def bin_dir() -> str:
    """The folder of the Python running the tests, where nbgrader, jupyter and ruff live."""
    return os.path.dirname(sys.executable)


requires_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
