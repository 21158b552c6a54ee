import subprocess
import sys

from tests.conftest import ROOT


def test_code_is_ruff_clean():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
